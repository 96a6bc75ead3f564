#!/usr/bin/env bash
# Usage: hack/tools/build.sh TOOL
#
# Builds bin/TOOL at the repository root from the Go module in hack/tools/TOOL/.
# Each tool has its own module so its pins (k8s.io/kubectl, etcd, kube-apiserver)
# never leak into apigen's go.mod. The binary is rebuilt only when it is missing
# or older than the tool's go.mod, so bumping a pin is what triggers a rebuild.
#
# What is built: the main package in the tool's directory when it has .go files,
# otherwise the single `tool` directive of its go.mod (for upstream commands such
# as go.etcd.io/etcd/server/v3 that need no wrapper).
set -euo pipefail

if [[ $# -ne 1 || -z "$1" || "$1" == */* ]]; then
	echo "usage: $0 TOOL   (a directory under hack/tools/)" >&2
	exit 2
fi
tool=$1
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dir=$root/hack/tools/$tool
out=$root/bin/$tool

if [[ ! -f $dir/go.mod ]]; then
	echo "$0: no Go module for tool \"$tool\" ($dir/go.mod is missing)" >&2
	exit 2
fi

if [[ -x $out && ! $dir/go.mod -nt $out ]]; then
	echo "bin/$tool is up to date"
	exit 0
fi

pkg=.
if ! compgen -G "$dir/*.go" >/dev/null; then
	pkg=tool
fi

# Kubernetes commands report the version stamped by their release build; a
# plain `go build` leaves v0.0.0-master, which kubectl flags as version skew.
# Stamp v1.X.Y from the module's k8s.io/component-base v0.X.Y (same release).
ldflags=
if kv=$(cd "$dir" && go list -mod=readonly -m -f '{{.Version}}' k8s.io/component-base 2>/dev/null) && [[ $kv == v0.* ]]; then
	kv=v1.${kv#v0.}
	minor=${kv#v1.}
	minor=${minor%%.*}
	for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
		ldflags+=" -X $p.gitVersion=$kv -X $p.gitMajor=1 -X $p.gitMinor=$minor"
	done
fi

mkdir -p "$root/bin"
start=$SECONDS
# -mod=readonly: a go.sum that is not complete is an error here, not a silent edit.
(cd "$dir" && go build -mod=readonly -trimpath -ldflags "$ldflags" -o "$out.tmp" "$pkg")
# Rename into place so an interrupted build never leaves a half-written binary
# that looks up to date.
mv -f "$out.tmp" "$out"
echo "built bin/$tool in $((SECONDS - start))s"
