#!/usr/bin/env bash
# The go tests of `make test`. test/e2e is by far the longest package, and go test would start
# it last of all (packages run in order): here it starts at once, in a go test of its own, and
# the other packages, the -race run and the separate modules run beside it, one at a time, on
# the other core. TestSQLReplicaWatchLatency times latencies, so it runs last, alone.
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
quiet='^TestSQLReplicaWatchLatency$'
failed=0

e2e_log=$(mktemp)
trap 'rm -f "$e2e_log"' EXIT
"$GO" test -count=1 -timeout=60m -skip "$quiet" ./test/e2e >"$e2e_log" 2>&1 &
e2e=$!

mapfile -t others < <("$GO" list ./... | grep -v '/test/e2e$')
"$GO" test -count=1 -timeout=60m -p 1 "${others[@]}" || failed=1
make --no-print-directory test-race || failed=1
for module in hack/promql test/controllerruntime; do
	echo "go vet and go test in $module"
	(cd "$module" && "$GO" vet ./... && "$GO" test -count=1 ./...) || failed=1
done

wait "$e2e" || failed=1
cat "$e2e_log"
"$GO" test -count=1 -timeout=20m -run "$quiet" ./test/e2e || failed=1
exit "$failed"
