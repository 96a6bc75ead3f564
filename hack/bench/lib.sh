# Shared functions of hack/bench/*.sh (sourced, not run).

# median: the median of the numbers on stdin, one per line.
median() {
	LC_ALL=C sort -g | awk '{ a[NR] = $1 } END { if (NR == 0) { print "nan"; exit } if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# timed OUT CMD...: runs CMD under /usr/bin/time, writing "<wall s> <user s> <sys s> <max RSS KiB>"
# to OUT. The CPU and peak RSS are those of CMD and every process it waited for (RSS: the
# largest single process, not a sum).
timed() {
	local out=$1
	shift
	/usr/bin/time -f "%e %U %S %M" -o "$out" "$@"
	# /usr/bin/time writes "Command exited with non-zero status" first when CMD fails.
	tail -n1 "$out" >"$out.tmp" && mv "$out.tmp" "$out"
}

# load: the 1-minute load average.
load1() { awk '{ print $1 }' /proc/loadavg; }

require_time() {
	if [[ ! -x /usr/bin/time ]]; then
		echo "$0: /usr/bin/time (GNU time) is needed: apt-get install time" >&2
		exit 2
	fi
}

# bench_apigen: the apigen binary to time: $APIGEN, or bin/apigen, built when missing ($root is
# the repository's root).
bench_apigen() {
	local apigen=${APIGEN:-$root/bin/apigen}
	if [[ ! -x $apigen ]]; then
		(cd "$root" && go build -o bin/apigen ./cmd/apigen)
	fi
	echo "$apigen"
}

# private_user_cache DIR: the user cache directory of the binaries timed (apigen's std types
# and result caches) is DIR; the go command's build cache, by default in the user cache
# directory too, stays where it is.
private_user_cache() {
	GOCACHE=$(go env GOCACHE)
	export GOCACHE XDG_CACHE_HOME=$1
}

# copy_project SRC DST: a copy of an apigen project without its build output.
copy_project() {
	mkdir -p "$2"
	cp -a "$1"/. "$2"/
	rm -rf "$2/bin" "$2/.apigen"
}

# kapi_project DIR: apigen init in DIR, then every k8s.io/api group but core copied into it
# (hack/bench/kapiproject, test/kapi's copy); sets copied to what was copied. Uses $apigen and
# $out.
kapi_project() {
	mkdir -p "$1"
	echo "apigen init, then k8s.io/api's packages copied ..." >&2
	(cd "$1" && "$apigen" init --repo example.com/kapi --domain example.com >/dev/null 2>"$out/init.err") || {
		cat "$out/init.err" >&2
		exit 1
	}
	copied=$(cd "$root" && go run ./hack/bench/kapiproject -dir "$1")
	echo "$copied" >&2
}

# tag_upstream DIR: adds to the project at DIR the +k8s and +genclient tags kube_codegen.sh's
# generators need and apigen injects in memory: on each version package's doc.go
# deepcopy-gen=package, defaulter-gen=TypeMeta, conversion-gen=<the group's storage version> in a
# version that does not store (the version with +apigen:storageversion; as apigen does when one
# version stores every kind that converts) and conversion-gen=false elsewhere, openapi-gen=true and
# openapi-model-package=<the name apigen gives>; on each +apigen:resource type +genclient
# (+genclient:nonNamespaced when scope=Cluster, +genclient:noStatus without
# +apigen:subresource:status, GetScale and UpdateScale methods with a scale subresource,
# +genclient:readonly with +apigen:storage:custom:verbs=get;list;watch in any order) and the
# runtime.Object deepcopy interface, on its List type the interface.
tag_upstream() {
	local dir=$1 module doc pkgdir pkg host model kinds cluster status scale readonly peer other
	module=$(awk '$1 == "module" { print $2; exit }' "$dir/go.mod")
	while IFS= read -r doc; do
		pkgdir=$(dirname "$doc")
		pkg=$module/${pkgdir#"$dir"/}
		host=${pkg%%/*}
		model=$(echo "$host" | awk -F. '{ for (i = NF; i > 0; i--) printf "%s%s", $i, (i > 1 ? "." : "") }')
		model=$model$(echo "${pkg#"$host"}" | tr / .)
		peer=false
		if ! grep -qs '+apigen:storageversion' "$pkgdir"/*.go; then
			for other in "$(dirname "$pkgdir")"/*/; do
				if grep -qs '+apigen:storageversion' "$other"*.go; then
					other=${other%/}
					peer=$module/${other#"$dir"/}
				fi
			done
		fi
		awk -v model="$model" -v peer="$peer" '
			/^package / && !done {
				print "//"
				print "// +k8s:deepcopy-gen=package"
				print "// +k8s:defaulter-gen=TypeMeta"
				print "// +k8s:conversion-gen=" peer
				print "// +k8s:openapi-gen=true"
				print "// +k8s:openapi-model-package=" model
				done = 1
			}
			{ print }' "$doc" >"$doc.tmp" && mv "$doc.tmp" "$doc"
		# kinds: the types right under a +apigen:resource marker.
		read -r kinds cluster status scale readonly < <(awk '
			/^\/\/ *\+apigen:resource/ { pend = 1; cl = ($0 ~ /scope=Cluster/); next }
			/^\/\/ *\+(apigen|kubebuilder):subresource:status/ { st = 1; next }
			/^\/\/ *\+(apigen|kubebuilder):subresource:scale/ { sc = 1; next }
			/^\/\/ *\+apigen:storage:custom:verbs=/ {
				v = $0; sub(/.*verbs=/, "", v); sub(/[ \t].*/, "", v)
				n = split(v, vs, ";"); delete seen; ro = (n == 3)
				for (i = 1; i <= n; i++) { if (vs[i] !~ /^(get|list|watch)$/ || seen[vs[i]]++) ro = 0 }
				next
			}
			/^\/\// { next }
			/^type [A-Za-z0-9_]+ struct/ && pend { k = k "," $2; if (cl) c = c "," $2; if (st) s = s "," $2; if (sc) z = z "," $2; if (ro) r = r "," $2 }
			{ pend = 0; st = 0; sc = 0; ro = 0 }
			END { printf "%s, %s, %s, %s, %s,\n", k, c, s, z, r }' "$pkgdir"/*.go)
		for f in "$pkgdir"/*.go; do
			[[ $(basename "$f") == zz_generated.* ]] && continue
			awk -v kinds="$kinds" -v cluster="$cluster" -v status="$status" -v scale="$scale" -v readonly="$readonly" '
				/^type [A-Za-z0-9_]+ struct/ {
					n = $2
					if (index(kinds, "," n ",")) {
						print "// +genclient"
						if (index(cluster, "," n ",")) print "// +genclient:nonNamespaced"
						if (!index(status, "," n ",")) print "// +genclient:noStatus"
						if (index(scale, "," n ",")) {
							print "// +genclient:method=GetScale,verb=get,subresource=scale,result=k8s.io/api/autoscaling/v1.Scale"
							print "// +genclient:method=UpdateScale,verb=update,subresource=scale,input=k8s.io/api/autoscaling/v1.Scale,result=k8s.io/api/autoscaling/v1.Scale"
						}
						if (index(readonly, "," n ",")) print "// +genclient:readonly"
						print "// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object"
					} else if (n ~ /List$/ && index(kinds, "," substr(n, 1, length(n) - 4) ",")) {
						print "// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object"
					}
				}
				{ print }' "$f" >"$f.tmp" && mv "$f.tmp" "$f"
		done
	done < <(find "$dir/pkg/apis" -mindepth 3 -maxdepth 3 -name doc.go | LC_ALL=C sort)
}

# bench_start: notes what a summary page names, as a benchmark starts: the time, the 1-minute load
# and the commit measured ($root is the repository's root).
bench_start() {
	bench_started=$(date -u +%Y-%m-%dT%H:%MZ)
	bench_load=$(load1)
	bench_commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
	# The summaries of earlier runs (docs/performance) change nothing that is measured.
	if [[ -n $(git -C "$root" status --porcelain -- . ':!docs/performance' 2>/dev/null) ]]; then
		bench_commit="$bench_commit (with uncommitted changes)"
	fi
}

# bench_doc NAME TITLE SUMMARY COMMAND: the summary beside docs/performance.md,
# docs/performance/NAME.md: TITLE, when and on what it was measured, the load at the start (see
# bench_start) and at the end, the commit and COMMAND, then the tables of the file SUMMARY.
# BENCH_DOC=0 leaves docs/ alone.
bench_doc() {
	local name=$1 title=$2 summary=$3 command=$4 page mem
	if [[ ${BENCH_DOC:-1} == 0 || ! -f $summary ]]; then
		return 0
	fi
	page=$root/docs/performance/$name.md
	mkdir -p "$(dirname "$page")"
	mem=$(awk '/^MemTotal:/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)
	{
		echo "# $title"
		echo
		echo "The latest run of this benchmark, written by the command below; [Performance](../performance.md)"
		echo "says what it measures and what the figures mean."
		echo
		echo "- Measured: $bench_started to $(date -u +%H:%MZ)"
		echo "- Machine: $(nproc) cores, $mem, $(uname -sm)"
		echo "- Load (1-minute average): $bench_load at the start, $(load1) at the end"
		echo "- apigen: $bench_commit"
		echo "- Command: \`$command\`"
		echo
		cat "$summary"
	} >"$page"
	echo "tables in ${page#"$root"/}" >&2
}
