// Command pprofshare splits the CPU samples of API server profiles (serverload
// -crd -pprof) into what a request's time goes to: each sample counts for the
// innermost frame of its stack that names a category (the etcd read, the
// aggregator's proxy, each filter of genericapiserver's chain, HTTP/2 and TLS,
// background garbage collection, ...), so a filter's share is its own work and
// not that of the filters and handler it wraps. This is how the shares of a
// get's and an apply's time on the aggregated path are measured:
//
//	go run ./hack/bench/pprofshare DIR/aggregated-get-apigen.pprof DIR/crd-get-kube-apiserver.pprof
//	go run ./hack/bench/pprofshare DIR/aggregated-apply-apigen.pprof DIR/crd-apply-kube-apiserver.pprof
//
// The write categories (the apply's YAML, the field manager, the strategy, the
// conversions to and from unstructured, etcd's update loop) came after the get
// table: on a CRD get they take ~3 % (the conversion's FromUnstructured) from
// the CRD row, where that table counts it.
// It reads the stacks from `go tool pprof -traces`.
package main

import (
	"bufio"
	"cmp"
	"flag"
	"fmt"
	"log"
	"maps"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"time"
)

// categories, tried in order on each frame from the leaf up; the first
// category whose pattern a frame matches takes the sample.
var categories = []struct{ name, pattern string }{
	{"etcd: decoding the stored object", `etcd3\.\(\*defaultDecoder\)|etcd3\.\(\*corruptObjErrorInterpretingDecoder\)|etcd3\.decode`},
	{"etcd: client and gRPC", `etcd3\.\(\*store\)\.Get|etcd3\.\(\*clientV3KVLatencyTracker\)|go\.etcd\.io/etcd/client|google\.golang\.org/grpc`},
	{"CRD: unstructured decoding with schema coercion, conversion, serving info", `apiextensions-apiserver/pkg/apiserver\.\(\*crdHandler\)|apiextensions-apiserver/pkg/apiserver/conversion|unstructuredDefaulter|schemaCoercing`},
	{"encoding the response", `handlers\.transformResponseObject|responsewriters\.`},
	{"apply: decoding the YAML patch (twice: the apply, then strict field validation)", `sigs\.k8s\.io/yaml\.|go\.yaml\.in/yaml|apimachinery/pkg/util/yaml\.`},
	{"writes: the field manager (structured-merge-diff, managed fields)", `managedfields/internal\.|endpoints/handlers/fieldmanager\.|structured-merge-diff/v6/(typed|merge|fieldpath)\.`},
	{"converting to or from unstructured (ToUnstructured, FromUnstructured)", `runtime\.\(\*unstructuredConverter\)`},
	{"writes: the strategy (prepare, validate: schema, CEL, metadata)", `rest\.BeforeUpdate|rest\.BeforeCreate|registry/customresource\.|apiextensions-apiserver/pkg/apiserver/validation\.|schema/cel\.|cel-go|kube-openapi/pkg/validation|\(\*SchemaValidation\)`},
	{"writes: etcd's read-modify-write (encoding for storage, the update loop)", `etcd3\.\(\*store\)\.GuaranteedUpdate|etcd3\.\(\*store\)\.Create|etcd3\.\(\*store\)\.updateState`},
	{"metrics", `component-base/metrics|prometheus`},
	{"the rest of the handler (go-restful, request scope)", `handlers\.GetResource|handlers\.getResourceHandler|go-restful|registerResourceHandlers|registry\.\(\*Store\)\.Get|handlers\.\(\*patcher\)|handlers\.PatchResource`},
	{"the aggregator's proxy (UpgradeAwareHandler, HTTP/2 client)", `kube-aggregator/pkg/apiserver\.\(\*proxyHandler\)|proxy\.\(\*UpgradeAwareHandler\)|http2\.\(\*ClientConn\)|http2\.\(\*clientStream\)|http2\.\(\*Transport\)|net/http\.\(\*Transport\)|httputil\.\(\*ReverseProxy\)`},
	{"authorization filter", `withAuthorization|WithAuthorization|rbac\.|authorizer`},
	{"priority and fairness", `priorityAndFairnessHandler|util/flowcontrol`},
	{"impersonation filter", `impersonation\.`},
	{"audit filters", `[Ww]ithAudit|pkg/audit\.|withFailedAuthenticationAudit|google/uuid`},
	{"authentication (x509, request-header)", `withAuthentication|WithAuthentication|authentication/|frontProxyAuthenticator|crypto/x509`},
	{"timeout filter (a goroutine per request)", `timeoutHandler|WithTimeoutForNonLongRunningRequests`},
	{"request info, latency trackers, tracing, the other filters", `pkg/server/filters\.|pkg/endpoints/filters\.|DefaultBuildHandlerChain|trustFrontProxy|WithRequestInfo|routine\.|filterlatency|endpoints/metrics`},
	{"HTTP/2 server and TLS", `http2\.\(\*serverConn\)|http2\.\(\*Framer\)|http2\.\(\*Server\)|crypto/tls|net/http\.\(\*conn\)|http2\.`},
	{"garbage collection (background)", `runtime\.gcBgMarkWorker|runtime\.bgsweep|runtime\.bgscavenge`},
}

const other = "other (runtime, scheduler, ...)"

func main() {
	log.SetFlags(0)
	log.SetPrefix("pprofshare: ")
	flag.Parse()
	if flag.NArg() == 0 {
		log.Fatal("usage: pprofshare PROFILE...")
	}
	res := make([]*regexp.Regexp, len(categories))
	for i, c := range categories {
		res[i] = regexp.MustCompile(c.pattern)
	}
	for _, file := range flag.Args() {
		out, err := exec.Command("go", "tool", "pprof", "-traces", file).Output()
		if err != nil {
			log.Fatalf("%s: %v", file, err)
		}
		shares, total, err := split(out, res)
		if err != nil {
			log.Fatalf("%s: %v", file, err)
		}
		fmt.Printf("%s: %v of samples\n", file, total)
		names := slices.SortedFunc(maps.Keys(shares), func(a, b string) int { return cmp.Compare(shares[b], shares[a]) })
		for _, n := range names {
			fmt.Printf("  %5.1f %%  %s\n", 100*float64(shares[n])/float64(total), n)
		}
	}
}

// split adds up the samples of pprof -traces output by category.
func split(traces []byte, res []*regexp.Regexp) (map[string]time.Duration, time.Duration, error) {
	shares := map[string]time.Duration{}
	var total time.Duration
	sep := "-----------+-------------------------------------------------------"
	for _, block := range strings.Split(string(traces), sep)[1:] {
		var frames []string
		var v time.Duration
		sc := bufio.NewScanner(strings.NewReader(block))
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line == "" {
				continue
			}
			if frames == nil {
				value, frame, ok := strings.Cut(line, " ")
				if !ok {
					break
				}
				d, err := time.ParseDuration(value)
				if err != nil {
					break // the header before the first trace
				}
				v, line = d, strings.TrimSpace(frame)
			}
			frames = append(frames, line)
		}
		if frames == nil {
			continue
		}
		total += v
		shares[classify(frames, res)] += v
	}
	if total == 0 {
		return nil, 0, fmt.Errorf("no samples")
	}
	return shares, total, nil
}

// classify names the category of the innermost frame that has one.
func classify(frames []string, res []*regexp.Regexp) string {
	for _, f := range frames {
		for i, re := range res {
			if re.MatchString(f) {
				return categories[i].name
			}
		}
	}
	return other
}
