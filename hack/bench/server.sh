#!/usr/bin/env bash
# Usage: hack/bench/server.sh [ROUNDS]        (make bench-server runs it with ROUNDS=6)
#
# The served side of the benchmarks: the API server apigen generates for examples/wardle
# against k8s.io/sample-apiserver v0.37.2 (the same wardle.example.com/v1alpha1 API, hand
# written), under the same client-go load, on the same etcd, in the same run
# (hack/bench/serverload; docs/benchmarking.md explains the set-up and why it is fair):
#   - builds etcd, kube-apiserver and sample-apiserver from their pinned Go modules
#     (hack/tools/build.sh, a no-op when bin/ is current) and examples/wardle from a copy;
#   - times the generated server's local mode (embedded etcd) from exec to /readyz, 5 times;
#   - starts one etcd member and a kube-apiserver on 127.0.0.1 (test/cluster), then, ROUNDS
#     times (default 6), starts both servers in cluster mode with the same flags (start-up to
#     /readyz) and runs each operation on one and then the other, alternating which goes
#     first: create, get, update, list of 1 000 and of 10 000 objects, watch fan-out to 50
#     watchers at full speed and at a fixed rate (8 workers, bounded in count and time); then
#     reads each one's peak RSS.
# Prints a markdown table of medians and the apigen / sample-apiserver ratios against the
# issue's targets. Figures per round are kept in $BENCH_OUT (default: a temp dir, printed at
# the end); BENCH_KEEP=1 keeps the servers' logs and data. Extra arguments after ROUNDS go to
# the load generator (go run ./hack/bench/serverload -h).
#
# hack/bench/server.sh ROUNDS -crd (= make bench-crd) is the CRD comparison of issue 26 instead:
# testdata/gizmo's kind as a CRD in kube-apiserver, through an APIService to the server apigen
# generates from the same types, and to that server directly, on one etcd and one kube-apiserver.
#
# hack/bench/server.sh ROUNDS -datastores (= make bench-storage, 4 rounds) is the storage comparison of
# issue 25: the generated server on embedded etcd (local mode), external etcd (cluster mode), SQLite,
# Postgres 15 and MariaDB (local mode, kine in-process; the databases from Debian's packages, installed
# when missing and run as root), one process each, order rotating per round, ratios to embedded etcd.
# Add -durable to run every SQL database durable at each commit (postgres fsync and synchronous_commit
# on, MariaDB innodb_flush_log_at_trx_commit=1, SQLite synchronous=FULL), as both etcds are; without it
# they run with the e2e tests' throwaway settings. -datastores -replicas compares one server on Postgres
# (-replicas-db mariadb: MariaDB) with -replica-count replicas (default 2) on one database reached
# directly (the load split between them, and a write through one replica seen by watchers on the
# others), and as many on another database behind kube-apiserver's aggregation routing (the whole
# load through kube-apiserver, the paced watch's deliveries split into cross- and same-replica).
#
# hack/bench/server.sh 1 -scale (= make bench-scale) is the scale envelope of issue 44: examples/wardle's
# kind at each count of -scale-counts (default 10000,100000) on embedded etcd, a 3-member etcd cluster and
# Postgres (durable), and as a CRD in kube-apiserver: fill, restart to ready, RSS, paged and unpaged lists,
# an informer's initial sync, a watch fan-out to 100 watchers with gets and updates beside it (scale.md).
# Beyond -scale-direct-from objects (default 100000) the fill writes straight to storage (direct.go).
#
# hack/bench/server.sh ROUNDS -protobuf (make bench-crd runs it with 3 rounds after -crd) is the protobuf
# comparison of issue 43: examples/wardle's Flunder through kube-apiserver to the generated server in
# protobuf and in JSON, and as a CRD (JSON): an informer's initial sync of -protobuf-counts objects
# (default 10000,50000), gets, lists and a watch fan-out, each client a process of its own whose CPU
# is measured, and the bytes etcd stores per object in JSON, protobuf and CBOR.
#
# Each run but -smoke, -pprof and -only also writes its tables to docs/performance/<comparison>.md
# (server, crd, protobuf, storage, storage-encodings, storage-replicas, scale or dv), headed with the date, the machine, the load and apigen's
# commit, which docs/performance.md links; BENCH_DOC=0 leaves docs/ alone.
#
# hack/bench/server.sh ROUNDS -dv (= make bench-dv) is the declarative validation comparison: one
# kind's rules as +k8s: tags and as kubebuilder markers (testdata/dv), two generated servers
# reached directly, create, get, update, patch and apply.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=lib.sh
source "$root/hack/bench/lib.sh"
runs=${1:-6}
shift || true

# -crd (the CRD comparison) needs no sample-apiserver; the load generator builds what it uses.
tools=(etcd kube-apiserver sample-apiserver)
for a in "$@"; do
	if [[ $a == -crd || $a == --crd ]]; then
		tools=(etcd kube-apiserver controller-gen kubectl)
	fi
	if [[ $a == -dv || $a == --dv || $a == -datastores || $a == --datastores ]]; then
		tools=(etcd kube-apiserver)
	fi
	if [[ $a == -scale || $a == --scale || $a == -protobuf || $a == --protobuf ]]; then
		tools=(etcd kube-apiserver kubectl)
	fi
done
for tool in "${tools[@]}"; do
	"$root/hack/tools/build.sh" "$tool" >&2
done

tmp=$(mktemp -d)
out=${BENCH_OUT:-$tmp/results}
mkdir -p "$out"
(cd "$root" && go build -o "$tmp/serverload" ./hack/bench/serverload)

args=(-root "$root" -rounds "$runs" -out "$out")
if [[ -n ${BENCH_KEEP:-} ]]; then
	args+=(-keep)
fi
bench_start
"$tmp/serverload" "${args[@]}" "$@"
echo >&2
echo "figures in $out (summary.md and rounds.json; with -scale, scale.md and scale.json)" >&2

# The summary beside docs/performance.md: docs/performance/<comparison>.md.
name=server title="The generated server against k8s.io/sample-apiserver" summary=summary.md doc=1
for a in "$@"; do
	case $a in
	-crd | --crd) name=crd title="Against a CRD" ;;
	-protobuf | --protobuf) name=protobuf title="Protobuf against JSON against a CRD" ;;
	-datastores | --datastores) name=storage title="Storage backends" ;;
	-scale | --scale) name=scale title="Scale envelope" summary=scale.md ;;
	-dv | --dv) name=dv title="+k8s: tags against kubebuilder markers" ;;
	-storage-media-type* | --storage-media-type*) name=storage-encodings title="Storage encodings" ;;
	-replicas | --replicas) name=storage-replicas title="Replicas on one database" ;;
	-smoke | --smoke | -pprof | --pprof | -pprof=* | --pprof=* | -only* | --only*) doc=0 ;;
	esac
done
# BENCH_DOC_NAME names the page instead, for a run that complements another (the scale envelope
# at 10^6 objects: scale-1e6).
name=${BENCH_DOC_NAME:-$name}
if [[ $doc != 0 ]]; then
	bench_doc "$name" "$title" "$out/$summary" "hack/bench/server.sh $runs${*:+ $*}"
fi
