// Command serverload is the server benchmark of docs/performance.md: the API server
// apigen generates for examples/wardle against k8s.io/sample-apiserver, which
// serves the same wardle.example.com/v1alpha1 API by hand, under the same
// client-go workload.
//
// It builds both (examples/wardle from a copy; sample-apiserver with
// hack/tools/build.sh from its pinned module), starts one etcd member and a
// kube-apiserver with test/cluster, and runs both servers at once in cluster
// mode with the same flags (but the port) against them, each under its default
// etcd prefix. The load generator talks to each server directly, authenticated
// as kube-apiserver's front proxy (see credentials). Each round restarts both
// servers, timing their start-up to /readyz, then runs every operation (create,
// get, update, list of -list-small and of -list-large objects, watch fan-out to
// -watchers watchers at full speed and at -watch-rate; -workers concurrent
// workers, bounded in count and time) on one server and right after on the
// other, alternating between rounds which goes first, and reads their peak
// RSS. Ratios are medians of the per-round pairs. It also times the generated
// server's local mode (embedded etcd) from exec to /readyz.
//
// With -dv it is the declarative validation comparison (dv.go): one kind's
// rules as +k8s: tags against the same rules as kubebuilder markers, two
// generated servers reached directly, create, get and the updates only.
//
// With -datastores it is the storage comparison of issue 25 instead
// (datastores.go): the generated server on embedded etcd, external etcd,
// SQLite, Postgres and MariaDB, one process each, ratios to embedded etcd;
// -durable makes the databases flush each commit, -replicas compares
// replicas on one Postgres or MariaDB database, reached directly and through
// kube-apiserver (routed.go), with one server.
//
// With -crd it is the CRD comparison of issue 26 instead (crd.go): one held-out
// kind (testdata/gizmo) as a CRD in kube-apiserver, through kube-apiserver's
// aggregation proxy to the server apigen generates from the same types, and
// to that server directly.
//
// With -protobuf it is the protobuf comparison of issue 43 (protobuf.go):
// examples/wardle's Flunder through kube-apiserver to the generated server in
// protobuf and in JSON, and as a CRD: informer syncs, gets, lists and watch
// fan-out, each client a process of its own whose CPU is measured, and the
// bytes etcd stores per object in JSON, protobuf and CBOR.
//
//	go run ./hack/bench/serverload -rounds 6          (what make bench-server runs)
//	go run ./hack/bench/serverload -smoke             (tiny counts, one round: does it work)
//	go run ./hack/bench/serverload -pprof /tmp/prof   (CPU profiles per operation instead)
//	go run ./hack/bench/serverload -dv -rounds 6      (what make bench-dv runs; -smoke and -pprof too)
//	go run ./hack/bench/serverload -crd -rounds 6     (what make bench-crd runs; -smoke and -pprof too)
//	go run ./hack/bench/serverload -crd -storage-media-type application/cbor   (JSON against CBOR storage, two servers direct)
//	go run ./hack/bench/serverload -scale -scale-counts 10000,100000   (what make bench-scale runs; scale.go)
//	go run ./hack/bench/serverload -protobuf -rounds 3   (what make bench-crd runs after -crd; protobuf.go)
//	go run ./hack/bench/serverload -datastores -rounds 4   (what make bench-storage runs; -smoke too)
//	go run ./hack/bench/serverload -datastores -durable   (the same, every SQL database durable at each commit)
//	go run ./hack/bench/serverload -datastores -replicas  (one server on Postgres against two replicas on one database,
//	                                                      directly and through kube-apiserver; -replicas-db mariadb,
//	                                                      -replica-count 3)
//
// Everything listens on 127.0.0.1 only, and every loop is bounded.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"maps"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/apigen-dev/apigen/test/cluster"
)

type options struct {
	root, wardle, out string
	keep, smoke       bool
	crd, dv           bool
	datastores        bool
	durable, replicas bool
	replicasDB        string
	replicaCount      int
	rounds            int
	startupRuns       int
	only              string
	pprofDir          string
	heapProfiles      string
	pprofSeconds      int
	prepareWorkers    int
	storageMediaType  string
	config
}

func main() {
	log.SetFlags(log.Ltime)
	log.SetPrefix("serverload: ")
	// client-go logs requests cut off by an operation's time limit; the
	// workload counts what matters itself.
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	var o options
	flag.StringVar(&o.root, "root", ".", "the apigen repository (bin/, hack/tools/)")
	flag.StringVar(&o.wardle, "wardle", "", "the apigen project to benchmark (default <root>/examples/wardle)")
	flag.StringVar(&o.out, "out", "", "also write summary.md and rounds.json here")
	flag.BoolVar(&o.keep, "keep", false, "keep the work dir (logs, data)")
	flag.BoolVar(&o.smoke, "smoke", false, "tiny counts and one round, to check that everything works")
	flag.IntVar(&o.rounds, "rounds", 6, "rounds; each restarts both servers and runs every operation on one and then the other, alternating which goes first")
	flag.IntVar(&o.startupRuns, "startup-runs", 5, "local-mode start-ups of the generated server (embedded etcd)")
	flag.StringVar(&o.only, "only", "", "run only this server: apigen or sample-apiserver (no ratios)")
	flag.StringVar(&o.pprofDir, "pprof", "", "instead of rounds: a CPU profile of each server per operation, into this dir")
	flag.IntVar(&o.pprofSeconds, "pprof-seconds", 15, "with -pprof: seconds per operation")
	flag.IntVar(&o.Workers, "workers", 8, "concurrent workers per operation")
	flag.IntVar(&o.prepareWorkers, "prepare-workers", 32, "concurrent workers that fill the list namespaces before anything is measured (untimed, not part of any figure; more than -workers so that a large namespace fills sooner)")
	flag.IntVar(&o.Creates, "creates", 2000, "creates per round")
	flag.IntVar(&o.Gets, "gets", 5000, "gets per round")
	flag.IntVar(&o.Updates, "updates", 2000, "updates per round")
	flag.IntVar(&o.Patches, "patches", 2000, "JSON merge patches per round (0: none)")
	flag.IntVar(&o.Applies, "applies", 2000, "server-side applies per round (0: none)")
	flag.BoolVar(&o.dv, "dv", false, "the declarative validation comparison instead: testdata/dv's kind with its rules as +k8s: tags (k8s) and as kubebuilder markers (markers), two generated servers reached directly; create, get, update, patch and apply only, and -list-small objects (at most 200) prepared for the warm-up")
	flag.BoolVar(&o.datastores, "datastores", false, "the storage comparison instead: the generated server on embedded etcd (local mode), external etcd (cluster mode), SQLite, Postgres and MariaDB (local mode, kine), one process each; with -only NAME, embedded etcd and NAME only")
	flag.BoolVar(&o.durable, "durable", false, "with -datastores: every SQL database makes each commit durable before it acknowledges it, as etcd does (postgres fsync and synchronous_commit on, MariaDB innodb_flush_log_at_trx_commit=1, SQLite synchronous=FULL); without it they run with the e2e tests' throwaway settings")
	flag.BoolVar(&o.replicas, "replicas", false, "with -datastores: the replica comparison instead, one server on a database against -replica-count replicas on one database of the same database server reached directly (the load split between them; the paced watch writes through one replica and watches on the others), and as many on a third database reached through kube-apiserver, which routes each request to one of them (the paced watch's deliveries split into cross- and same-replica)")
	flag.StringVar(&o.replicasDB, "replicas-db", "postgres", "with -replicas: postgres or mariadb")
	flag.IntVar(&o.replicaCount, "replica-count", 2, "with -replicas: how many replicas share the second database (2 or more)")
	flag.BoolVar(&o.crd, "crd", false, "the CRD comparison instead: testdata/gizmo as a CRD in kube-apiserver, through kube-apiserver to the generated server (APIService), and to it directly")
	flag.StringVar(&o.storageMediaType, "storage-media-type", "", "with -crd: the storage encoding comparison instead: a second generated server with --storage-media-type=this (on its own etcd prefix) next to the first, which stores JSON, both reached directly (sides direct and direct-<subtype>); no CRD and no aggregated path")
	flag.IntVar(&o.DescriptionBytes, "description-bytes", 600, "with -crd or -dv: bytes of spec.description (a created object is about this + 600 bytes of JSON; at most 16384 with -crd, 4096 with -dv)")
	flag.StringVar(&o.heapProfiles, "heap-profiles", "", "with -crd and -mem-objects: also save each process's heap profile before and after each side's objects, into this dir")
	flag.IntVar(&o.MemObjects, "mem-objects", 5000, "with -crd: objects created through each store to measure the memory it adds (0: none)")
	flag.IntVar(&o.ListSmall, "list-small", 1000, "objects in the small list")
	flag.IntVar(&o.ListLarge, "list-large", 10000, "objects in the large list")
	flag.IntVar(&o.ListSmallN, "list-small-n", 200, "lists of the small namespace per round")
	flag.IntVar(&o.ListLargeN, "list-large-n", 40, "lists of the large namespace per round")
	flag.IntVar(&o.ListLargeWorkers, "list-large-workers", 0, "concurrent workers of the large namespace's lists, unpaged and paged (0: -workers); fewer than -workers keeps very large lists under the servers' 60 s request timeout")
	flag.IntVar(&o.ListPage, "list-page", 0, "also list the large namespace in pages of this many objects (limit and continue, as client-go's pager; 0: no paged list)")
	flag.IntVar(&o.Watchers, "watchers", 50, "watchers of the watch fan-out")
	flag.IntVar(&o.WatchEvents, "watch-events", 500, "objects created while they watch, as fast as the server takes them (throughput)")
	flag.IntVar(&o.WatchPacedEvents, "watch-paced-events", 300, "objects created while they watch at -watch-rate (latency)")
	flag.Float64Var(&o.WatchRate, "watch-rate", 40, "creates per second of the paced watch (0: none)")
	flag.DurationVar(&o.PhaseTimeout, "phase-timeout", 2*time.Minute, "time limit of each operation")
	flag.Parse()
	register(flunderKind)
	if o.smoke {
		o.rounds, o.startupRuns = 1, 1
		o.config = config{Workers: 4, Creates: 40, Gets: 40, Updates: 40, Patches: 40, Applies: 40, ListSmall: 30, ListLarge: 100,
			ListSmallN: 8, ListLargeN: 4, Watchers: 5, WatchEvents: 10, WatchPacedEvents: 10, WatchRate: 20, PhaseTimeout: 30 * time.Second,
			DescriptionBytes: o.DescriptionBytes, MemObjects: 200, ListPage: min(o.ListPage, 30)}
	}
	if n := btoi(o.dv) + btoi(o.crd) + btoi(o.datastores) + btoi(scaleOpts.enabled) + btoi(protoOpts.enabled); n > 1 {
		log.Fatal("-dv, -crd, -datastores, -scale and -protobuf are different comparisons: choose one")
	}
	if o.storageMediaType != "" && !o.crd {
		log.Fatal("-storage-media-type goes with -crd")
	}
	if (o.durable || o.replicas) && !o.datastores {
		log.Fatal("-durable and -replicas go with -datastores")
	}
	if o.replicas && o.only != "" {
		log.Fatal("-only does not apply to -replicas")
	}
	if o.replicasDB != "postgres" && o.replicasDB != "mariadb" {
		log.Fatalf("-replicas-db %q: want postgres or mariadb", o.replicasDB)
	}
	if o.replicaCount < 2 || o.replicaCount > 26 {
		log.Fatalf("-replica-count %d: want 2 to 26", o.replicaCount)
	}
	if o.datastores && o.pprofDir != "" {
		log.Fatal("-pprof does not apply to -datastores")
	}
	if o.dv {
		// Lists and watches do not validate; the list namespaces only feed
		// the warm-up's gets.
		o.WritesOnly = true
		o.ListSmall = min(o.ListSmall, 200)
		o.ListLarge = o.ListSmall
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	if err := run(ctx, &o); err != nil {
		log.Fatal(err)
	}
}

type bench struct {
	dir     string
	etcd    *cluster.Etcd
	kas     *cluster.KubeAPIServer
	serving *cluster.Pair
	// servingCA signed serving, for an APIService's caBundle.
	servingCA *cluster.CA
	cred      *credentials
	// etcdMembers is the size of the etcd cluster startControlPlane starts
	// (0: one member).
	etcdMembers int
	// servingDNS are names the serving certificate holds beside localhost.
	servingDNS []string
	// servingIPs are addresses it holds beside 127.0.0.1.
	servingIPs []net.IP
	// kasArgs are more flags for the control plane's kube-apiserver.
	kasArgs []string
}

// runResult is one server's figures in one round.
type runResult struct {
	Server  string
	Round   int
	First   bool // this server ran first in the round
	Startup time.Duration
	Memory  memory
	Phases  []*phaseResult
	// StorageMemory is the Pss of the storage's process (and its children)
	// after the round, when the storage is outside the server (-datastores).
	StorageMemory int64 `json:",omitempty"`
}

func run(ctx context.Context, o *options) error {
	root, err := filepath.Abs(o.root)
	if err != nil {
		return err
	}
	if o.wardle == "" {
		o.wardle = filepath.Join(root, "examples", "wardle")
	}
	dir, err := os.MkdirTemp("", "serverload-")
	if err != nil {
		return err
	}
	if o.keep {
		log.Printf("work dir (kept): %s", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	if scaleOpts.enabled {
		return runScale(ctx, o, root, dir)
	}
	if protoOpts.enabled {
		return runProtobuf(ctx, o, root, dir)
	}
	if o.crd {
		return runCRD(ctx, o, root, dir)
	}
	if o.datastores {
		return runDatastores(ctx, o, root, dir)
	}
	b := &bench{dir: dir}

	log.Printf("building etcd and kube-apiserver (hack/tools/build.sh) ...")
	bins, err := cluster.Build(root)
	if err != nil {
		return err
	}
	var servers []server
	wardleBin := ""
	if o.dv {
		if servers, err = dvServers(root, dir, o.DescriptionBytes); err != nil {
			return err
		}
	} else {
		// -only apigen needs no sample-apiserver (nor its build).
		sampleBin := ""
		if o.only != "apigen" {
			log.Printf("building sample-apiserver (hack/tools/build.sh) and %s ...", o.wardle)
			if sampleBin, err = buildTool(root, "sample-apiserver"); err != nil {
				return err
			}
		}
		if wardleBin, err = buildWardle(o.wardle, dir); err != nil {
			return err
		}
		servers = []server{{Name: "apigen", Bin: wardleBin}, {Name: "sample-apiserver", Bin: sampleBin}}
	}
	if o.only != "" {
		var keep []server
		for _, s := range servers {
			if s.Name == o.only {
				keep = append(keep, s)
			}
		}
		if len(keep) == 0 {
			return fmt.Errorf("-only %q: want one of %v", o.only, names(servers))
		}
		servers = keep
	}

	// Local mode first, while nothing else of ours runs.
	var local []localRun
	if o.pprofDir == "" && wardleBin != "" {
		for i := range o.startupRuns {
			d := filepath.Join(dir, fmt.Sprintf("local-%d", i))
			if err := os.MkdirAll(d, 0o700); err != nil {
				return err
			}
			took, m, err := localStartup(ctx, wardleBin, d)
			if err != nil {
				return fmt.Errorf("local-mode start-up: %w", err)
			}
			log.Printf("local mode (embedded etcd) ready in %v, RSS %s", took.Round(time.Millisecond), mib(m.RSS))
			local = append(local, localRun{took, m})
		}
	}

	stop, err := b.startControlPlane(bins)
	if err != nil {
		return err
	}
	defer stop()

	if err := b.prepare(ctx, o, servers); err != nil {
		return err
	}

	if o.pprofDir != "" {
		return profile(ctx, b, o, servers)
	}

	// Both servers run at once, on their own ports and etcd prefixes (each
	// keeps its default: /registry/wardle and /registry/wardle.example.com).
	// Each operation runs on one server and then on the other before the
	// next operation starts, so the two figures of a pair are taken seconds
	// apart and share the machine's state; rounds alternate which goes first.
	var results []*runResult
	ops := operations(o.config)
	for round := 1; round <= o.rounds; round++ {
		order := servers
		if round%2 == 0 && len(servers) == 2 {
			order = []server{servers[1], servers[0]}
		}
		rs, err := b.round(ctx, o, order, ops, round)
		if err != nil {
			return fmt.Errorf("round %d: %w", round, err)
		}
		for _, rr := range rs {
			log.Printf("round %d/%d %s: %s", round, o.rounds, rr.Server, brief(rr))
		}
		results = append(results, rs...)
	}

	summary := report(o, servers, results, local)
	fmt.Print(summary)
	return writeResults(o, summary, struct {
		Local  []localRun
		Rounds []*runResult
	}{local, results})
}

// prepare creates the namespaces of the workload in kube-apiserver (the
// NamespaceLifecycle admission of a server in cluster mode refuses objects in
// namespaces kube-apiserver does not have), then fills the list namespaces
// once per server, untimed; each server keeps its objects (under its own etcd
// prefix, or in its own store) across restarts.
func (b *bench) prepare(ctx context.Context, o *options, servers []server) error {
	namespaces := []string{"warm", listNamespace(o.ListSmall), listNamespace(o.ListLarge)}
	for r := 0; r <= o.rounds; r++ {
		namespaces = append(namespaces, roundNamespaces("", r)...)
	}
	if err := createNamespaces(ctx, b.kas, namespaces); err != nil {
		return err
	}
	for _, s := range servers {
		log.Printf("%s: preparing %s and %s", s.Name, listNamespace(o.ListSmall), listNamespace(o.ListLarge))
		r, err := b.start(ctx, s, s.Name+"-prepare")
		if err != nil {
			return err
		}
		err = fillListNamespaces(ctx, r.target, o)
		r.stop()
		if err != nil {
			return fmt.Errorf("%s: preparing: %w", s.Name, err)
		}
	}
	return nil
}

// startControlPlane starts one etcd member and a kube-apiserver on it, and
// makes the servers' serving certificate and the load generator's front-proxy
// credentials (system:masters); stop ends both processes.
func (b *bench) startControlPlane(bins cluster.Binaries) (stop func(), err error) {
	if b.etcd, err = cluster.StartEtcd(bins.Etcd, filepath.Join(b.dir, "etcd"), max(b.etcdMembers, 1)); err != nil {
		return nil, err
	}
	if b.kas, err = cluster.StartKubeAPIServer(bins.KubeAPIServer, filepath.Join(b.dir, "kube-apiserver"), b.etcd, b.kasArgs...); err != nil {
		b.etcd.Stop()
		return nil, err
	}
	stop = func() {
		b.kas.Stop()
		b.etcd.Stop()
	}
	defer func() {
		if err != nil {
			stop()
		}
	}()
	pki := filepath.Join(b.dir, "pki")
	if err := os.MkdirAll(pki, 0o700); err != nil {
		return nil, err
	}
	servingCA, err := cluster.NewCA(pki, "serving-ca", "serverload-serving-ca")
	if err != nil {
		return nil, err
	}
	b.servingCA = servingCA
	if b.serving, err = servingCA.Issue(pki, "serving", cluster.CertOptions{
		CommonName: "localhost", Server: true, DNSNames: append([]string{"localhost"}, b.servingDNS...), IPs: append([]net.IP{net.IPv4(127, 0, 0, 1)}, b.servingIPs...),
	}); err != nil {
		return nil, err
	}
	proxy, err := b.kas.FrontProxyCA.Issue(pki, "proxy-client", cluster.CertOptions{CommonName: cluster.FrontProxyClientName})
	if err != nil {
		return nil, err
	}
	if b.cred, err = newCredentials(servingCA, proxy, "bench", "system:masters"); err != nil {
		return nil, err
	}
	return stop, nil
}

// wardleBench is what the modes that load o.wardle's server start from.
type wardleBench struct {
	bins    cluster.Binaries
	kubectl string // bin/kubectl, when asked for
	wardle  string // the server's binary
}

// buildAndStart builds etcd, kube-apiserver (and kubectl when withKubectl) with
// hack/tools/build.sh and o.wardle's server, then starts b's control plane;
// stop ends it.
func (b *bench) buildAndStart(o *options, root string, withKubectl bool) (w wardleBench, stop func(), err error) {
	tools := "etcd and kube-apiserver"
	if withKubectl {
		tools = "etcd, kube-apiserver, kubectl"
	}
	log.Printf("building %s (hack/tools/build.sh) and %s ...", tools, o.wardle)
	if w.bins, err = cluster.Build(root); err != nil {
		return w, nil, err
	}
	if withKubectl {
		if w.kubectl, err = buildTool(root, "kubectl"); err != nil {
			return w, nil, err
		}
	}
	if w.wardle, err = buildWardle(o.wardle, b.dir); err != nil {
		return w, nil, err
	}
	stop, err = b.startControlPlane(w.bins)
	return w, stop, err
}

// writeResults writes summary.md and rounds.json (every figure) into -out.
func writeResults(o *options, summary string, figures any) error {
	if o.out == "" {
		return nil
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(o.out, "summary.md"), []byte(summary), 0o644); err != nil {
		return err
	}
	data, err := json.MarshalIndent(figures, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(o.out, "rounds.json"), data, 0o644)
}

// round starts every server of order (in that order, timing each start-up),
// warms them up, runs each operation on each of them in that order, reads
// their memory and stops them.
func (b *bench) round(ctx context.Context, o *options, order []server, ops []operation, round int) ([]*runResult, error) {
	var rs []*runResult
	var sessions []*session
	var procs []*running
	defer func() {
		for _, r := range procs {
			r.stop()
		}
	}()
	// One at a time, each warmed up (its watch cache filled) before the next
	// starts, so that a start-up competes with nothing of ours but an idle
	// server.
	for i, s := range order {
		rr := &runResult{Server: s.Name, Round: round, First: i == 0}
		r, err := b.start(ctx, s, fmt.Sprintf("%s-r%d", s.Name, round))
		if err != nil {
			return nil, err
		}
		procs = append(procs, r)
		rr.Startup = r.startup
		rs = append(rs, rr)
		sessions = append(sessions, newSession(r.target, o.config, round))
		if err := warmUp(ctx, r.target, round, o.config); err != nil {
			return nil, fmt.Errorf("%s: %w", s.Name, err)
		}
	}
	for _, op := range ops {
		for i := range order {
			load := load1()
			p, err := op.measure(ctx, sessions[i], nil)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", order[i].Name, op.Name, err)
			}
			p.Load = load
			rs[i].Phases = append(rs[i].Phases, p)
		}
	}
	for i, r := range procs {
		m, err := readMemory(r.proc.Pid())
		if err != nil {
			return nil, err
		}
		rs[i].Memory = m
	}
	return rs, nil
}

type localRun struct {
	Startup time.Duration
	Memory  memory
}

func createNamespaces(ctx context.Context, kas *cluster.KubeAPIServer, names []string) error {
	cfg, err := kas.AdminConfig()
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	for _, n := range names {
		_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating namespace %s in kube-apiserver: %w", n, err)
		}
	}
	return nil
}

// profile takes, for each server, a CPU profile of each operation: the
// operation runs for -pprof-seconds without a count bound while
// /debug/pprof/profile records the server (profiling is on by default, and
// system:masters may read it).
func profile(ctx context.Context, b *bench, o *options, servers []server) error {
	if err := os.MkdirAll(o.pprofDir, 0o755); err != nil {
		return err
	}
	c := o.config
	c.Creates, c.Gets, c.Updates, c.ListSmallN, c.ListLargeN, c.WatchEvents, c.WatchPacedEvents = 0, 0, 0, 0, 0, 0, 0
	c.Patches, c.Applies = unbounded(c.Patches), unbounded(c.Applies)
	c.PhaseTimeout = time.Duration(o.pprofSeconds) * time.Second
	for _, s := range servers {
		r, err := b.start(ctx, s, s.Name+"-pprof")
		if err != nil {
			return err
		}
		err = warmUp(ctx, r.target, 0, c)
		if err == nil {
			err = profileOps(ctx, o, r.target, c, 0)
		}
		r.stop()
		if err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
	}
	return nil
}

// profileOps runs each operation of c on t for -pprof-seconds while
// /debug/pprof/profile records every process serving t, into
// <side>-<op>[-<process>].pprof.
func profileOps(ctx context.Context, o *options, t *target, c config, round int) error {
	hook := func(op string) func() {
		var files []string
		var dones []chan error
		for _, p := range t.procs {
			name := t.name + "-" + strings.NewReplacer(" ", "-", ",", "", "/", "per").Replace(op)
			if len(t.procs) > 1 || p.Name != t.name {
				name += "-" + p.Name
			}
			file := filepath.Join(o.pprofDir, name+".pprof")
			done := make(chan error, 1)
			go func() { done <- fetchProfile(ctx, p, fmt.Sprintf("profile?seconds=%d", o.pprofSeconds), file) }()
			files, dones = append(files, file), append(dones, done)
		}
		return func() {
			for i, done := range dones {
				if err := <-done; err != nil {
					log.Printf("%s %s: profile: %v", t.name, op, err)
				} else {
					log.Printf("%s %s: %s", t.name, op, files[i])
				}
			}
		}
	}
	var phases []*phaseResult
	sess := newSession(t, c, round)
	for _, op := range operations(c) {
		p, err := op.measure(ctx, sess, hook)
		if err != nil {
			return err
		}
		phases = append(phases, p)
	}
	for _, p := range phases {
		log.Printf("%s %s: %d ok, %.0f/s, p50 %v, p99 %v, server CPU/op %v%s", t.name, p.Op, p.OK, p.Throughput(), p.P50, p.P99, p.CPUPerOp(), cpuSplit(p))
	}
	return nil
}

// cpuSplit is ", of which <process> <CPU/op>..." when more than one process
// serves the path.
func cpuSplit(p *phaseResult) string {
	if len(p.CPUBy) == 0 || p.OK == 0 {
		return ""
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(p.CPUBy)) {
		parts = append(parts, fmt.Sprintf("%s %v", name, p.CPUBy[name]/time.Duration(p.OK)))
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// fetchProfile writes the process's /debug/pprof/<profile> (with its query) to file.
func fetchProfile(ctx context.Context, p *proc, profile, file string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL+"/debug/pprof/"+profile, nil)
	if err != nil {
		return err
	}
	resp, err := p.HC.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("%s: %s", resp.Status, body)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func load1() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(data))[0]
}

func brief(r *runResult) string {
	var parts []string
	parts = append(parts, fmt.Sprintf("ready %v", r.Startup.Round(time.Millisecond)))
	for _, p := range r.Phases {
		s := fmt.Sprintf("%s %.0f/s p99 %v", p.Op, p.Throughput(), p.P99.Round(100*time.Microsecond))
		if p.Errors > 0 {
			s += fmt.Sprintf(" (%d errors)", p.Errors)
		}
		parts = append(parts, s)
	}
	if r.Memory.HWM > 0 {
		parts = append(parts, "peak RSS "+mib(r.Memory.HWM))
	}
	return strings.Join(parts, ", ")
}

// restHTTPClient is client-go's HTTP client for a kubeconfig's config.
func restHTTPClient(cfg *rest.Config) (*http.Client, error) { return rest.HTTPClientFor(cfg) }

func machine() string {
	return fmt.Sprintf("%d cores (GOMAXPROCS of each process), %s/%s, %s", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version())
}
