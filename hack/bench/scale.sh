#!/usr/bin/env bash
# Usage: hack/bench/scale.sh [RUNS]           (make bench runs it with RUNS=3)
#
# How apigen generate scales with the number of kinds: synthesizes projects with
# hack/bench/synth (go.mod/go.sum copied from examples/wardle, so the same dependency
# versions) and times bin/apigen generate on each (every generated file deleted first, so all
# are written) and bin/apigen verify (no-op), RUNS times each (default 3), medians:
#   10 kinds  =  1 group  × 2 versions (v1 storage, v1beta1) × 5 kinds
#   30 kinds  =  3 groups × 2 versions × 5 kinds
#  100 kinds  = 10 groups × 2 versions × 5 kinds
# ("kinds" counts kind declarations: each version declares the group's 5 kinds.)
# SCALE_UPSTREAM=1 also times deepcopy-gen + openapi-gen (the upstream subset apigen covers)
# on the same projects, once per size.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=hack/bench/lib.sh
source "$root/hack/bench/lib.sh"
require_time

runs=${1:-3}
bench_start
# This measures the load: apigen's result cache would answer the verify after a generate.
export APIGEN_CACHE=off
apigen=$(bench_apigen)
tmp=$(mktemp -d)
out=${BENCH_OUT:-$tmp/results}
mkdir -p "$out"
if [[ -z ${BENCH_KEEP:-} ]]; then
	trap 'rm -rf "$tmp"/p*' EXIT
fi
(cd "$root" && go build -o "$tmp/synth" ./hack/bench/synth)
if [[ -n ${SCALE_UPSTREAM:-} ]]; then
	"$root/hack/tools/codegen/build.sh" >&2
fi

{
	echo "apigen generate by project size, $runs runs each, medians; $(nproc) cores, $(go version | awk '{ print $3 }'), $(date -u +%Y-%m-%dT%H:%MZ)"
	echo
	echo "| kinds (groups × versions × kinds) | API packages | generate wall | generate CPU | generate peak RSS | verify wall | verify CPU | verify peak RSS | load avg |"
	echo "|---|---|---|---|---|---|---|---|---|"
} | tee "$out/scale.md"
for spec in "1 2 5" "3 2 5" "10 2 5"; do
	read -r g v k <<<"$spec"
	n=$((g * v * k))
	p=$tmp/p$n
	"$tmp/synth" -src "$root/examples/wardle" -out "$p" -groups "$g" -versions "$v" -kinds "$k"
	(cd "$p" && "$apigen" generate >/dev/null) # warm-up, and the tree verify compares with
	loads=$(load1)
	for i in $(seq 1 "$runs"); do
		find "$p/pkg" -name 'zz_generated.*.go' -delete
		(cd "$p" && timed "$out/gen.$n.$i" "$apigen" generate >/dev/null)
		(cd "$p" && timed "$out/verify.$n.$i" "$apigen" verify)
	done
	loads="$loads $(load1)"
	m() { for i in $(seq 1 "$runs"); do awk "{ print $2 }" "$out/$1.$n.$i"; done | median; }
	printf '| %d (%d × %d × %d) | %d | %.2f s | %.2f s | %.0f MiB | %.2f s | %.2f s | %.0f MiB | %s |\n' \
		"$n" "$g" "$v" "$k" "$((g * v))" \
		"$(m gen '$1')" "$(m gen '$2 + $3')" "$(m gen '$4 / 1024')" \
		"$(m verify '$1')" "$(m verify '$2 + $3')" "$(m verify '$4 / 1024')" "$loads" | tee -a "$out/scale.md"
	if [[ -n ${SCALE_UPSTREAM:-} ]]; then
		u=$tmp/u$n
		copy_project "$p" "$u"
		tag_upstream "$u"
		rm -f "$out/usteps.$n"
		UPSTREAM_ONLY='deepcopy-gen|openapi-gen' "$root/hack/bench/upstream.sh" "$root/bin" "$u" "$out/usteps.$n"
		awk -v n="$n" '$1 ~ /^(deepcopy-gen|openapi-gen)$/ { w += $2; c += $3 + $4; if ($5 > r) r = $5 }
			END { printf "  upstream deepcopy-gen + openapi-gen at %d kinds (1 run): %.2f s wall, %.2f s CPU, %.0f MiB\n", n, w, c, r / 1024 }' \
			"$out/usteps.$n" | tee -a "$out/scale.md"
		rm -rf "$u"
	fi
done
echo "raw figures (wall user sys maxrss-KiB) in $out" >&2
bench_doc generate-scale "apigen generate at 10, 30 and 100 kinds" "$out/scale.md" "${SCALE_UPSTREAM:+SCALE_UPSTREAM=$SCALE_UPSTREAM }hack/bench/scale.sh $runs"
