#!/usr/bin/env bash
# Usage: hack/bench/compare.sh OLD-APIGEN [NEW-APIGEN] [RUNS]
#
# Times two apigen binaries on examples/wardle, interleaved, RUNS times each (default 5) after
# one untimed warm-up of each: apigen generate with every generated file deleted first and no
# result cache. For before/after figures of a change to apigen itself (docs/performance.md), e.g.
#   git worktree add /tmp/before <commit> && (cd /tmp/before && go build -o /tmp/apigen-before ./cmd/apigen)
#   hack/bench/compare.sh /tmp/apigen-before bin/apigen 5
# Medians of wall time, CPU (user+sys) and peak RSS, measured with GNU time. The binaries get
# a private user cache directory (the go command's build cache stays where it is): an older
# binary that keeps the standard library's types there fills it in its warm-up, so the timed
# runs have it warm.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=hack/bench/lib.sh
source "$root/hack/bench/lib.sh"
require_time

old=$(realpath "$1")
new=$(realpath "${2:-$root/bin/apigen}")
runs=${3:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export APIGEN_CACHE=off
private_user_cache "$tmp/cache"
copy_project "$root/examples/wardle" "$tmp/project"

run() { # run BINARY OUT
	find "$tmp/project" -name 'zz_generated.*.go' -delete
	rm -rf "$tmp/project/pkg/generated" "$tmp/project/docs"
	(cd "$tmp/project" && timed "$2" "$1" generate >/dev/null)
}
run "$old" "$tmp/warm" && run "$new" "$tmp/warm"
for i in $(seq 1 "$runs"); do
	run "$old" "$tmp/old.$i"
	run "$new" "$tmp/new.$i"
done
row() { # row NAME PREFIX
	local wall cpu rss
	wall=$(cat "$tmp/$2".* | awk '{ print $1 }' | median)
	cpu=$(cat "$tmp/$2".* | awk '{ print $2 + $3 }' | median)
	rss=$(cat "$tmp/$2".* | awk '{ print $4 / 1024 }' | median)
	printf '| %s | %.2f s | %.2f s | %.0f MiB |\n' "$1" "$wall" "$cpu" "$rss"
}
echo "examples/wardle, apigen generate, $runs interleaved runs each, medians; $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
echo
echo "| binary | wall | CPU (user+sys) | peak RSS |"
echo "|---|---|---|---|"
row "old: $1" old
row "new: ${2:-bin/apigen}" new
