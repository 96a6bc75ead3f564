#!/usr/bin/env bash
# The main job, end to end: regenerate examples/wardle with the apigen in bin/, build its server,
# start it in local mode (embedded etcd, 127.0.0.1, client-certificate auth) and talk to it with
# a real kubectl. Everything it starts is stopped on exit. Run it through `make demo`.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The first free port from 8443 up, unless DEMO_PORT says which.
port=${DEMO_PORT:-8443}
if [[ -z ${DEMO_PORT:-} ]]; then
	while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
		port=$((port + 1))
	done
fi
work=$(mktemp -d)
kubectl=("$root/bin/kubectl" --kubeconfig "$work/kubeconfig")
server_pid=

cleanup() {
	if [[ -n $server_pid ]] && kill -0 "$server_pid" 2>/dev/null; then
		kill -INT "$server_pid" && wait "$server_pid" || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }

cd "$root/examples/wardle"
step apigen generate
"$root/bin/apigen" generate

step go build -o apiserver ./cmd/apiserver
go build -o "$work/apiserver" ./cmd/apiserver

step ./apiserver --secure-port="$port" --data-dir=.apigen/data --write-kubeconfig=.apigen/kubeconfig
"$work/apiserver" --secure-port="$port" --data-dir="$work/data" --write-kubeconfig="$work/kubeconfig" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 300); do
	if [[ -f $work/kubeconfig ]] && "${kubectl[@]}" get --raw /readyz >/dev/null 2>&1; then
		break
	fi
	if ! kill -0 "$server_pid" 2>/dev/null; then
		cat "$work/server.log" >&2
		echo "the server exited before it was ready" >&2
		exit 1
	fi
	sleep 0.1
done
grep -i kubeconfig "$work/server.log" || true

step kubectl api-resources --api-group=wardle.example.com
"${kubectl[@]}" api-resources --api-group=wardle.example.com

step kubectl create -f flunder.yaml
"${kubectl[@]}" create -f - <<'YAML'
apiVersion: wardle.example.com/v1alpha1
kind: Flunder
metadata:
  name: my-first-flunder
  labels:
    sample-label: "true"
spec:
  reference: my-fischer
  referenceType: Fischer
YAML

step kubectl get flunders
"${kubectl[@]}" get flunders

step kubectl get flunder my-first-flunder -o yaml
"${kubectl[@]}" get flunder my-first-flunder -o yaml

echo
echo "The server stops now; run it yourself from examples/wardle with: go run ./cmd/apiserver"
