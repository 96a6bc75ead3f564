#!/usr/bin/env bash
# Usage: hack/tools/codegen/build.sh
#
# Builds the upstream generators that apigen is benchmarked against into bin/ at the
# repository root, one binary per `tool` directive of this directory's go.mod:
# k8s.io/code-generator v0.37.2's deepcopy-gen, defaulter-gen, conversion-gen, register-gen,
# client-gen, lister-gen, informer-gen and applyconfiguration-gen, and k8s.io/kube-openapi's
# openapi-gen at the version code-generator v0.37.2 requires. hack/tools/build.sh builds one
# binary per module; this module has several, so this script follows the same conventions
# (own module, -mod=readonly -trimpath, a binary is rebuilt only when it is missing or older
# than go.mod, rename into place) for each of them.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
dir=$root/hack/tools/codegen
cd "$dir"

mapfile -t pkgs < <(go list -mod=readonly tool | LC_ALL=C sort)
if [[ ${#pkgs[@]} -eq 0 ]]; then
	echo "$0: no tool directives in $dir/go.mod" >&2
	exit 2
fi

stale=()
for p in "${pkgs[@]}"; do
	out=$root/bin/${p##*/}
	if [[ ! -x $out || $dir/go.mod -nt $out ]]; then
		stale+=("$p")
	fi
done
if [[ ${#stale[@]} -eq 0 ]]; then
	echo "bin/{$(printf '%s,' "${pkgs[@]##*/}" | sed 's/,$//')} are up to date"
	exit 0
fi

mkdir -p "$root/bin"
tmp=$(mktemp -d "$root/bin/.codegen.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
start=$SECONDS
# One go build for all of them: the shared packages compile once.
go build -mod=readonly -trimpath -o "$tmp/" "${stale[@]}"
for p in "${stale[@]}"; do
	mv -f "$tmp/${p##*/}" "$root/bin/${p##*/}"
done
echo "built $(printf 'bin/%s ' "${stale[@]##*/}")in $((SECONDS - start))s"
