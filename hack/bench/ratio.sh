#!/usr/bin/env bash
# Usage: hack/bench/ratio.sh RUNS APIGEN...
#
# Issue 26's scaling figure for one or more apigen binaries: `apigen verify` with the result
# cache off (the pre-commit hook's cost on a miss) on examples/wardle and on the 100-kind
# synthetic project (hack/bench/synth -groups 10 -versions 2 -kinds 5), each generated first by
# the first binary, then every binary on each project in turn, RUNS rounds (the order rotating
# each round) after one untimed warm-up. A binary that does not verify fails the script, so
# the binaries must also agree on the output. Prints medians of wall time, CPU (user+sys) and
# peak RSS, and the 100-kind/wardle CPU ratio (of the medians, and the median of each round's),
# e.g. for a change to apigen:
#   git worktree add /tmp/before <commit> && (cd /tmp/before && go build -o /tmp/apigen-before ./cmd/apigen)
#   hack/bench/ratio.sh 5 /tmp/apigen-before bin/apigen
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=hack/bench/lib.sh
source "$root/hack/bench/lib.sh"
require_time

runs=$1
shift
bins=()
for b in "$@"; do bins+=("$(realpath "$b")"); done
n=${#bins[@]}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export APIGEN_CACHE=off

projects=(wardle synth100)
copy_project "$root/examples/wardle" "$tmp/wardle"
(cd "$root" && go run ./hack/bench/synth -src examples/wardle -out "$tmp/synth100" -groups 10 -versions 2 -kinds 5 >/dev/null)
for p in "${projects[@]}"; do (cd "$tmp/$p" && "${bins[0]}" generate >/dev/null); done

run() { # run INDEX PROJECT ROUND
	(cd "$tmp/$2" && timed "$tmp/out.$1.$2.$3" "${bins[$1]}" verify >/dev/null)
}
for p in "${projects[@]}"; do for k in $(seq 0 $((n - 1))); do run "$k" "$p" warm; done; done
: >"$tmp/load"
for i in $(seq 1 "$runs"); do
	echo "round $i/$runs (load $(load1)) ..." >&2
	load1 >>"$tmp/load"
	for p in "${projects[@]}"; do
		for k in $(seq 0 $((n - 1))); do run $(((i + k) % n)) "$p" "$i"; done
	done
done
load1 >>"$tmp/load"

med() { # med INDEX PROJECT EXPR
	for i in $(seq 1 "$runs"); do awk "{ print $3 }" "$tmp/out.$1.$2.$i"; done | median
}
echo "apigen verify (result cache off), $runs rounds (order rotating), medians; $(nproc) cores, $(go version | awk '{ print $3 }'), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "1-min load average before each round and at the end: $(paste -sd' ' "$tmp/load")"
echo
echo "| binary | wardle wall | wardle CPU | wardle RSS | 100 kinds wall | 100 kinds CPU | 100 kinds RSS | CPU ratio (of medians; median of rounds) |"
echo "|---|---|---|---|---|---|---|---|"
for k in $(seq 0 $((n - 1))); do
	rr=$(for i in $(seq 1 "$runs"); do
		paste "$tmp/out.$k.wardle.$i" "$tmp/out.$k.synth100.$i" | awk '{ print ($6 + $7) / ($2 + $3) }'
	done | median)
	awk -v b="${bins[$k]}" -v ww="$(med "$k" wardle '$1')" -v wc="$(med "$k" wardle '$2 + $3')" -v wr="$(med "$k" wardle '$4')" \
		-v sw="$(med "$k" synth100 '$1')" -v sc="$(med "$k" synth100 '$2 + $3')" -v sr="$(med "$k" synth100 '$4')" -v rr="$rr" 'BEGIN {
		printf "| %s | %.2f s | %.2f s | %.0f MiB | %.2f s | %.2f s | %.0f MiB | %.2f× ; %.2f× |\n", b, ww, wc, wr / 1024, sw, sc, sr / 1024, sc / wc, rr }'
done
