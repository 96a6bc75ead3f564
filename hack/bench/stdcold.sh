#!/usr/bin/env bash
# Usage: hack/bench/stdcold.sh OLD-APIGEN NEW-APIGEN [ROUNDS]
#
# Times two apigen binaries on a copy of examples/wardle with apigen's std cache
# (loader.StdCache) cold and warm, interleaved, ROUNDS rounds (default 5). Each round runs, for
# the old binary and then the new one: generate cold (every generated file deleted first, the
# std cache directory emptied), verify cold (the std cache directory emptied), generate warm
# (every generated file deleted first), verify warm, verify as the first run of a rebuilt
# binary (the binaries' entries deleted, what else the std cache directory holds kept), and
# verify with a std cache that can be neither read nor written (its directory replaced by a
# file: every run is a cold one that writes nothing), all with the result cache off (APIGEN_CACHE=off). The binaries get a private user cache directory; the go command's build
# cache stays where it is (a cold std cache is served from it when it holds the standard
# library). Prints medians and ranges of wall time, medians of CPU (user+sys) and peak RSS
# (GNU time), and the 1-minute load average before each round.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=hack/bench/lib.sh
source "$root/hack/bench/lib.sh"
require_time

old=$(realpath "$1")
new=$(realpath "$2")
rounds=${3:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export APIGEN_CACHE=off
private_user_cache "$tmp/cache"
copy_project "$root/examples/wardle" "$tmp/project"

clean() {
	find "$tmp/project" -name 'zz_generated.*.go' -delete
	rm -rf "$tmp/project/pkg/generated" "$tmp/project/docs"
}
run() { # run BINARY NAME ROUND
	local bin=$1 name=$2 i=$3
	for kind in generate-cold verify-cold generate-warm verify-warm verify-newbin verify-nocache; do
		case $kind in
		*-cold) rm -rf "$tmp/cache/apigen/std" ;;
		*-newbin) find "$tmp/cache/apigen/std" -maxdepth 1 -name '[0-9a-f]*' -delete ;;
		*-nocache) rm -rf "$tmp/cache/apigen/std" && mkdir -p "$tmp/cache/apigen" && touch "$tmp/cache/apigen/std" ;;
		esac
		case $kind in
		generate-*) clean ;;
		esac
		(cd "$tmp/project" && timed "$tmp/$name.$kind.$i" "$bin" "${kind%-*}" >/dev/null)
	done
	rm -f "$tmp/cache/apigen/std"
}
# One untimed round each, so that both binaries' pages and the go command's caches are warm.
run "$old" warmup 0
run "$new" warmup 0
loads=()
for i in $(seq 1 "$rounds"); do
	loads+=("$(load1)")
	run "$old" old "$i"
	run "$new" new "$i"
done
row() { # row BINARY NAME KIND
	local wall lo hi cpu rss
	wall=$(cat "$tmp/$2.$3".* | awk '{ print $1 }' | median)
	lo=$(cat "$tmp/$2.$3".* | awk '{ print $1 }' | LC_ALL=C sort -g | head -n1)
	hi=$(cat "$tmp/$2.$3".* | awk '{ print $1 }' | LC_ALL=C sort -g | tail -n1)
	cpu=$(cat "$tmp/$2.$3".* | awk '{ print $2 + $3 }' | median)
	rss=$(cat "$tmp/$2.$3".* | awk '{ print $4 / 1024 }' | median)
	printf '| %s | %s | %.2f s (%.2f–%.2f) | %.2f s | %.0f MiB |\n' "$3" "$1" "$wall" "$lo" "$hi" "$cpu" "$rss"
}
echo "examples/wardle, $rounds interleaved rounds, medians; $(nproc) cores; load before each round: ${loads[*]}, after: $(load1)"
echo
echo "| run | binary | wall (range) | CPU (user+sys) | peak RSS |"
echo "|---|---|---|---|---|"
for kind in generate-cold verify-cold generate-warm verify-warm verify-newbin verify-nocache; do
	row "old" old "$kind"
	row "new" new "$kind"
done
