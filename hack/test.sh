#!/usr/bin/env bash
# The go tests of `make test`. test/e2e is by far the longest package, mostly waiting on the
# servers it starts, and go test would start it last of all (packages run in order). Here it
# starts at once, as two go tests side by side: the ecosystem tests (real modules from the Go
# module proxy, each building servers of hundreds of kinds) and the rest. Beside them, one
# package at a time, run the other packages, the -race run and the separate modules.
# TestSQLReplicaWatchLatency times latencies, so it runs last, alone.
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
quiet='^TestSQLReplicaWatchLatency$'
ecosystem='^(TestKubebuilderMatrix|TestKubernetesAPIGroups)$'
failed=0

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
# Compiled once, so that the two go tests below only link it.
"$GO" test -count=1 -run '^$' ./test/e2e >/dev/null || failed=1
"$GO" test -count=1 -timeout=60m -run "$ecosystem" ./test/e2e >"$logs/ecosystem" 2>&1 &
ecosystem_pid=$!
"$GO" test -count=1 -timeout=60m -skip "$quiet|$ecosystem" ./test/e2e >"$logs/e2e" 2>&1 &
e2e_pid=$!

mapfile -t others < <("$GO" list ./... | grep -v '/test/e2e$')
"$GO" test -count=1 -timeout=60m -p 1 "${others[@]}" || failed=1
make --no-print-directory test-race || failed=1
for module in hack/promql test/controllerruntime; do
	echo "go vet and go test in $module"
	(cd "$module" && "$GO" vet ./... && "$GO" test -count=1 ./...) || failed=1
done

wait "$e2e_pid" || failed=1
echo "test/e2e but the ecosystem tests:"
cat "$logs/e2e"
wait "$ecosystem_pid" || failed=1
echo "test/e2e's ecosystem tests ($ecosystem):"
cat "$logs/ecosystem"
"$GO" test -count=1 -timeout=20m -run "$quiet" ./test/e2e || failed=1
exit "$failed"
