#!/usr/bin/env bash
# Usage: hack/bench/upstream.sh BIN_DIR PROJECT_DIR STEPS_FILE
#        (UPSTREAM_OPENAPI_SCHEMA=FILE: applyconfiguration-gen's --openapi-schema, as
#        kube_codegen.sh's --applyconfig-openapi-schema passes it; default none)
#
# Runs the upstream generators over PROJECT_DIR (a copy of an apigen project whose API
# packages carry the +k8s tags upstream needs, see tag_upstream in generate.sh) the way
# k8s.io/code-generator v0.37.2's kube_codegen.sh runs them:
#   gen_helpers  pkg/apis                       deepcopy-gen, defaulter-gen, conversion-gen
#   gen_register pkg/apis                       register-gen
#   gen_openapi  pkg/apis (+ model-name file)   openapi-gen
#   gen_client   pkg/apis --with-watch --with-applyconfig
#                                               applyconfiguration-gen, client-gen,
#                                               lister-gen, informer-gen
# with the flags kube_codegen.sh passes (same --output-file names, --readonly-pkg list, the
# four apimachinery inputs of openapi-gen, output dirs under pkg/generated). Each generator
# is timed on its own with /usr/bin/time; one line per generator is appended to STEPS_FILE:
#   <name> <wall s> <user s> <sys s> <max RSS KiB>
#
# What kube_codegen.sh does besides and this script leaves out (all of it would make the
# upstream side slower): `go install` of the generators on every call, one `go list -find`
# per input package per generator (import paths are derived from go.mod here), and the
# API-violation report diff of gen_openapi (the report is written, not compared).
set -euo pipefail

bin=$1
proj=$(cd "$2" && pwd -P)
steps=$3
cd "$proj"

module=$(awk '$1 == "module" { print $2; exit }' go.mod)
in_dir=pkg/apis
out_dir=pkg/generated
out_pkg=$module/$out_dir
boilerplate=$proj/hack/boilerplate.go.txt
log=$(mktemp)
trap 'rm -f "$log"' EXIT

readonly_args=()
for p in k8s.io/apimachinery/pkg/apis/meta/v1 k8s.io/apimachinery/pkg/api/resource \
	k8s.io/apimachinery/pkg/runtime k8s.io/apimachinery/pkg/types \
	k8s.io/apimachinery/pkg/util/intstr k8s.io/apimachinery/pkg/version time; do
	readonly_args+=(--readonly-pkg "$p")
done

# pkgs_with REGEX: the import paths of the directories under pkg/apis with a Go file
# matching REGEX, as kube_codegen.sh's grep finds them.
pkgs_with() {
	{ grep -rl --include '*.go' -e "$1" "$in_dir" || true; } | xargs -r -n1 dirname | LC_ALL=C sort -u |
		sed "s|^|$module/|"
}

# step NAME CMD...: runs CMD under /usr/bin/time, appending its figures to STEPS_FILE.
# UPSTREAM_ONLY=REGEX runs only the generators whose name matches it.
step() {
	local name=$1
	shift
	if [[ -n ${UPSTREAM_ONLY:-} && ! $name =~ ^(${UPSTREAM_ONLY})$ ]]; then
		return 0
	fi
	if ! /usr/bin/time -f "$name %e %U %S %M" -a -o "$steps" "$@" >"$log" 2>&1; then
		echo "upstream.sh: $name failed:" >&2
		cat "$log" >&2
		exit 1
	fi
}

# gen_helpers
mapfile -t pkgs < <(pkgs_with '^\s*//\s*+k8s:deepcopy-gen=')
find "$in_dir" -type f -name zz_generated.deepcopy.go -delete
step deepcopy-gen "$bin/deepcopy-gen" -v 0 --output-file zz_generated.deepcopy.go \
	--go-header-file "$boilerplate" "${pkgs[@]}"

mapfile -t pkgs < <(pkgs_with '^\s*//\s*+k8s:defaulter-gen=')
find "$in_dir" -type f -name zz_generated.defaults.go -delete
step defaulter-gen "$bin/defaulter-gen" -v 0 --output-file zz_generated.defaults.go \
	--go-header-file "$boilerplate" "${pkgs[@]}"

mapfile -t pkgs < <(pkgs_with '^\s*//\s*+k8s:conversion-gen=')
find "$in_dir" -type f -name zz_generated.conversion.go -delete
step conversion-gen "$bin/conversion-gen" -v 0 --output-file zz_generated.conversion.go \
	--go-header-file "$boilerplate" "${pkgs[@]}"

# gen_register
mapfile -t pkgs < <(pkgs_with '^\s*//\s*+groupName')
find "$in_dir" -type f -name zz_generated.register.go -delete
step register-gen "$bin/register-gen" -v 0 --output-file zz_generated.register.go \
	--go-header-file "$boilerplate" "${pkgs[@]}"

# gen_openapi --output-dir pkg/generated/openapi --output-pkg .../pkg/generated/openapi
#             --output-model-name-file zz_generated.model_name.go --report-filename R --update-report
mapfile -t pkgs < <(pkgs_with '^\s*//\s*+k8s:openapi')
find "$in_dir" -type f -name zz_generated.openapi.go -delete
step openapi-gen "$bin/openapi-gen" -v 0 --output-file zz_generated.openapi.go \
	--go-header-file "$boilerplate" --output-dir "$out_dir/openapi" --output-pkg "$out_pkg/openapi" \
	--report-filename "$log.report" --output-model-name-file=zz_generated.model_name.go \
	"${readonly_args[@]}" \
	k8s.io/apimachinery/pkg/apis/meta/v1 k8s.io/apimachinery/pkg/runtime \
	k8s.io/apimachinery/pkg/version k8s.io/apimachinery/pkg/api/resource "${pkgs[@]}"
rm -f "$log.report"

# gen_client --output-dir pkg/generated --output-pkg .../pkg/generated --with-watch --with-applyconfig
pkgs=()
group_versions=()
while read -r dir; do
	leaf=$(basename "$dir")
	if [[ $leaf =~ ^v[0-9]+((alpha|beta)[0-9]+)?$ ]]; then
		pkgs+=("$module/$dir")
		group_versions+=("$(basename "$(dirname "$dir")")/$leaf")
	fi
done < <({ grep -rl --include '*.go' -e '^\s*//\s*+genclient' "$in_dir" || true; } | xargs -r -n1 dirname | LC_ALL=C sort -u)
inputs=()
for gv in "${group_versions[@]}"; do
	inputs+=(--input "$gv")
done
mkdir -p "$out_dir"
for sub in applyconfiguration clientset listers informers; do
	rm -rf "${out_dir:?}/$sub"
done
step applyconfiguration-gen "$bin/applyconfiguration-gen" -v 0 --go-header-file "$boilerplate" \
	--output-dir "$out_dir/applyconfiguration" --output-pkg "$out_pkg/applyconfiguration" \
	--external-applyconfigurations "" --openapi-schema "${UPSTREAM_OPENAPI_SCHEMA:-}" "${pkgs[@]}"
step client-gen "$bin/client-gen" -v 0 --go-header-file "$boilerplate" \
	--output-dir "$out_dir/clientset" --output-pkg "$out_pkg/clientset" --clientset-name versioned \
	--apply-configuration-package "$out_pkg/applyconfiguration" --input-base "$proj/$in_dir" \
	--plural-exceptions "" --prefers-protobuf=false "${inputs[@]}"
step lister-gen "$bin/lister-gen" -v 0 --go-header-file "$boilerplate" \
	--output-dir "$out_dir/listers" --output-pkg "$out_pkg/listers" --plural-exceptions "" "${pkgs[@]}"
step informer-gen "$bin/informer-gen" -v 0 --go-header-file "$boilerplate" \
	--output-dir "$out_dir/informers" --output-pkg "$out_pkg/informers" \
	--versioned-clientset-package "$out_pkg/clientset/versioned" --listers-package "$out_pkg/listers" \
	--plural-exceptions "" "${pkgs[@]}"
