#!/usr/bin/env bash
# Usage: hack/test.sh
#
# What `make test` runs: every test of apigen, its examples and its
# side modules, as three jobs side by side. Most of an end-to-end test's time is spent waiting
# on the processes it starts (kube-apiserver, kube-controller-manager, etcd, the databases,
# the generated servers), so test/e2e runs as two shards beside the unit, golden and example
# tests, which keeps both cores busy. Each job's lines carry its name; a summary with each
# job's wall time closes the run, and the exit code is non-zero when any job failed.
#
# The shards split test/e2e's top-level tests: E2E_SHARD_A (a regular expression matched as
# by `go test -run`) names the first shard's, the second runs every other test, so a new test
# is never left out. Balance them by the durations in docs/testing.md. E2E_QUIET names the
# tests that time latencies: they run last, alone on the machine.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
GO=${GO:-go}

E2E_SHARD_A=${E2E_SHARD_A:-'^(TestKubebuilderMatrix|TestInACluster|TestNewProject|TestLoad.*|TestNestedObjectMeta|TestKubernetesAPITypes|TestKubebuilderTypes|TestStorageMigrationOnPostgres|TestVersions|TestValidationDiff|TestEtcdOnlyServer)$'}

E2E_QUIET=${E2E_QUIET:-'^(TestSQLReplicaWatchLatency)$'}

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

e2e=$logs/e2e.test
unit() {
	echo "go vet and gofmt"
	make --no-print-directory lint
	make --no-print-directory test-examples
	# shellcheck disable=SC2046 # one word per package
	$GO test -count=1 -timeout=40m $($GO list ./... | grep -v '/test/e2e$')
	(cd hack/promql && $GO vet ./... && $GO test -count=1 ./...)
	(cd test/controllerruntime && $GO vet ./... && $GO test -count=1 ./...)
}

tools() { make --no-print-directory tools; }

# The end-to-end test binary, built once for both shards (each shard runs it in its package
# directory, as go test does).
e2e_build() { $GO test -c -o "$e2e" ./test/e2e; }

e2e_a() { (cd test/e2e && "$e2e" -test.count=1 -test.timeout=40m -test.run "$E2E_SHARD_A" -test.skip "$E2E_QUIET"); }
e2e_b() { (cd test/e2e && "$e2e" -test.count=1 -test.timeout=40m -test.skip "$E2E_SHARD_A|$E2E_QUIET"); }
e2e_quiet() { (cd test/e2e && "$e2e" -test.count=1 -test.timeout=20m -test.run "$E2E_QUIET"); }

# run NAME FUNC: FUNC in the background, its lines prefixed with NAME, its exit code and
# wall time kept in $logs.
run() {
	local name=$1 fn=$2
	(
		start=$SECONDS
		set +e
		(
			set -e
			"$fn"
		) 2>&1 | sed -u "s/^/[$name] /"
		rc=${PIPESTATUS[0]}
		echo "$rc $((SECONDS - start))" >"$logs/$name.rc"
	) &
}

# report NAME...: one line per job; false when any failed.
report() {
	local name rc secs ok=0
	for name in "$@"; do
		read -r rc secs <"$logs/$name.rc"
		if [[ $rc == 0 ]]; then rc=ok; else rc=FAIL ok=1; fi
		printf '%-9s %-5s %dm%02ds\n' "$name" "$rc" $((secs / 60)) $((secs % 60))
	done
	return $ok
}

# First the binaries the tests drive (tools: kube-apiserver and the rest, from their modules)
# beside the end-to-end test binary: the downloads of one overlap the compiles of the other.
run tools tools
run e2e-build e2e_build
wait
echo
if ! report tools e2e-build; then
	exit 1
fi

run e2e-a e2e_a
run e2e-b e2e_b
run unit unit
wait
run e2e-quiet e2e_quiet
wait
echo
report tools e2e-build e2e-a e2e-b unit e2e-quiet
