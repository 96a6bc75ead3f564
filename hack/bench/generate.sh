#!/usr/bin/env bash
# Usage: hack/bench/generate.sh [RUNS]        (make bench runs it with RUNS=5)
#
# Times code generation for examples/wardle side by side, on copies in a temp dir, RUNS
# times each (default 5, interleaved), after one untimed warm-up of each:
#   A      the upstream generators as kube_codegen.sh runs them (hack/bench/upstream.sh):
#          deepcopy, defaulter, conversion, register, openapi (+ model names),
#          applyconfiguration, client, lister, informer; built from Go modules by
#          hack/tools/codegen/build.sh into bin/. applyconfiguration-gen gets the OpenAPI
#          schema apigen builds in memory (hack/bench/applyschema, written once, untimed:
#          upstream would compile and run a program to dump it). This is what apigen
#          generate does too: A / B is like for like.
#   A-sub  the upstream generators for what apigen generates too: deepcopy-gen, defaulter-gen,
#          conversion-gen and openapi-gen
#          (its model-name files included), and the same + register-gen (from the same runs).
#   B      bin/apigen generate with every generated file deleted first (all are written,
#          the clients and docs/api-reference.md included), and
#          bin/apigen verify on the current tree (a no-op): with the result cache off (it
#          loads), and on (it hits: the generate before it recorded the tree). The result cache
#          is a private one in the temp dir.
# Figures are medians over the runs of wall time, CPU (user+sys) and peak RSS (the largest
# single process), measured with GNU time (/usr/bin/time). The raw figures are kept in
# $BENCH_OUT (default: a temp dir, printed at the end).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=hack/bench/lib.sh
source "$root/hack/bench/lib.sh"
require_time

runs=${1:-5}
bench_start
apigen=$(bench_apigen)
"$root/hack/tools/codegen/build.sh" >&2

tmp=$(mktemp -d)
out=${BENCH_OUT:-$tmp/results}
mkdir -p "$out"
if [[ -z ${BENCH_KEEP:-} ]]; then
	trap 'rm -rf "$tmp/upstream" "$tmp/apigen" "$tmp/cache"' EXIT
fi

# apigen's result cache goes to the temp dir; the go command's build cache, by default in the
# same user cache directory, stays where it is (an empty one would slow every load).
private_user_cache "$tmp/cache"

copy_project "$root/examples/wardle" "$tmp/upstream"
copy_project "$root/examples/wardle" "$tmp/apigen"
tag_upstream "$tmp/upstream"
(cd "$root" && go run ./hack/bench/applyschema -dir "$tmp/apigen" -o "$tmp/openapi-schema.json")
export UPSTREAM_OPENAPI_SCHEMA=$tmp/openapi-schema.json

run_a() { # run_a N: one upstream run, figures in $out/a.N and per generator in $out/steps.N
	rm -f "$out/steps.$1"
	timed "$out/a.$1" "$root/hack/bench/upstream.sh" "$root/bin" "$tmp/upstream" "$out/steps.$1"
}
run_b() { # run_b N: apigen generate from scratch, then apigen verify on the tree it wrote: loading, and cached
	find "$tmp/apigen" -name 'zz_generated.*.go' -delete
	rm -rf "$tmp/apigen/pkg/generated" "$tmp/apigen/docs"
	(cd "$tmp/apigen" && timed "$out/gen.$1" "$apigen" generate >/dev/null)
	(cd "$tmp/apigen" && timed "$out/verify.$1" env APIGEN_CACHE=off "$apigen" verify)
	(cd "$tmp/apigen" && timed "$out/hit.$1" "$apigen" verify)
}

echo "warm-up ..." >&2
run_a warm
run_b warm
if ! (cd "$tmp/apigen" && "$apigen" verify -v 2>&1 | grep -q "cache hit"); then
	echo "$0: apigen verify after generate is no cache hit: the cache-hit row measures a full run" >&2
fi
: >"$out/load"
for i in $(seq 1 "$runs"); do
	echo "run $i/$runs (load $(load1)) ..." >&2
	load1 >>"$out/load"
	run_a "$i"
	run_b "$i"
done
load1 >>"$out/load"

# col FILES... COLUMN-EXPR: the median over FILES of an awk expression on their one line.
med() { # med PREFIX EXPR
	local f
	for i in $(seq 1 "$runs"); do
		f=$out/$1.$i
		awk "{ print $2 }" "$f"
	done | median
}
# steps_med EXPR-OVER-SELECTED-STEPS NAMES-REGEX: per run, sum (wall, cpu) or max (rss) over steps.
steps_med() { # steps_med wall|cpu|rss REGEX
	for i in $(seq 1 "$runs"); do
		awk -v what="$1" -v re="^($2)\$" '
			$1 ~ re { w += $2; c += $3 + $4; if ($5 > r) r = $5 }
			END { if (what == "wall") print w; else if (what == "cpu") print c; else print r }' "$out/steps.$i"
	done | median
}

fmt_row() { # fmt_row NAME WALL CPU RSS_KIB
	printf '| %s | %.2f s | %.2f s | %.0f MiB |\n' "$1" "$2" "$3" "$(awk -v k="$4" 'BEGIN { print k / 1024 }')"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f×", a / b }'; }

a_wall=$(med a '$1') a_cpu=$(med a '$2 + $3') a_rss=$(med a '$4')
sub='deepcopy-gen|defaulter-gen|conversion-gen|openapi-gen'
subr='deepcopy-gen|defaulter-gen|conversion-gen|openapi-gen|register-gen'
s_wall=$(steps_med wall "$sub") s_cpu=$(steps_med cpu "$sub") s_rss=$(steps_med rss "$sub")
r_wall=$(steps_med wall "$subr") r_cpu=$(steps_med cpu "$subr") r_rss=$(steps_med rss "$subr")
g_wall=$(med gen '$1') g_cpu=$(med gen '$2 + $3') g_rss=$(med gen '$4')
v_wall=$(med verify '$1') v_cpu=$(med verify '$2 + $3') v_rss=$(med verify '$4')
h_wall=$(med hit '$1') h_cpu=$(med hit '$2 + $3') h_rss=$(med hit '$4')

{
	echo "examples/wardle, $runs runs each, medians; $(nproc) cores, $(go version | awk '{ print $3 }'), $(date -u +%Y-%m-%dT%H:%MZ)"
	echo "1-min load average before each run and at the end: $(paste -sd' ' "$out/load")"
	echo
	echo "| command | wall | CPU (user+sys) | peak RSS |"
	echo "|---|---|---|---|"
	fmt_row "A: upstream, all 9 generators (kube_codegen.sh equivalent, with the apply configurations' schema)" "$a_wall" "$a_cpu" "$a_rss"
	fmt_row "A-sub: deepcopy-gen + defaulter-gen + conversion-gen + openapi-gen (with model names)" "$s_wall" "$s_cpu" "$s_rss"
	fmt_row "A-sub+register: A-sub + register-gen" "$r_wall" "$r_cpu" "$r_rss"
	fmt_row "B: apigen generate (all files written, clients included)" "$g_wall" "$g_cpu" "$g_rss"
	fmt_row "B: apigen verify (no-op, tree current; result cache off)" "$v_wall" "$v_cpu" "$v_rss"
	fmt_row "B: apigen verify (no-op, result cache hit)" "$h_wall" "$h_cpu" "$h_rss"
	echo
	echo "| ratio | wall | CPU | peak RSS (B / A) |"
	echo "|---|---|---|---|"
	echo "| A / apigen generate (like for like) | $(ratio "$a_wall" "$g_wall") | $(ratio "$a_cpu" "$g_cpu") | $(ratio "$g_rss" "$a_rss") |"
	echo "| A-sub / apigen generate | $(ratio "$s_wall" "$g_wall") | $(ratio "$s_cpu" "$g_cpu") | $(ratio "$g_rss" "$s_rss") |"
	echo "| A-sub+register / apigen generate | $(ratio "$r_wall" "$g_wall") | $(ratio "$r_cpu" "$g_cpu") | $(ratio "$g_rss" "$r_rss") |"
	echo
	echo "Upstream, per generator (medians):"
	echo
	echo "| generator | wall | CPU | peak RSS |"
	echo "|---|---|---|---|"
	for g in deepcopy-gen defaulter-gen conversion-gen register-gen openapi-gen applyconfiguration-gen client-gen lister-gen informer-gen; do
		fmt_row "$g" "$(steps_med wall "$g")" "$(steps_med cpu "$g")" "$(steps_med rss "$g")"
	done
} | tee "$out/summary.md"
bench_doc generate "examples/wardle: apigen against the upstream generators" "$out/summary.md" "hack/bench/generate.sh $runs"
echo >&2
echo "raw figures (wall user sys maxrss-KiB) in $out" >&2
