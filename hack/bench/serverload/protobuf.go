package main

// The protobuf comparison (-protobuf, part of make bench-crd): what a client
// gains from the protobuf the generated server speaks and a CRD cannot.
// examples/wardle's Flunder, padded by an annotation to about -protobuf-bytes
// bytes of JSON, served three ways at once on one etcd and one kube-apiserver,
// every client going through kube-apiserver as its admin:
//
//   - protobuf: the generated server (cluster mode, registered with an
//     APIService), the client asking for application/vnd.kubernetes.protobuf;
//   - json: the same server and objects, the client asking for JSON;
//   - crd: the same fields as a CustomResourceDefinition in kube-apiserver
//     (group crd.wardle.example.com; JSON, a CRD serves no protobuf).
//
// Every client operation runs in a process of its own (testdata/wardleclient,
// built in a copy of the project with the project's Go types; the same code
// and the same typed Flunder for every side, only the group and the content
// type differ), which reports the CPU it used during the operation
// (getrusage); the servers' CPU is read from /proc around it. The sides take
// turns, operation by operation, the order rotating per round.
//
// For each count of -protobuf-counts (smallest first): fill one namespace of
// each store up to the count (untimed), then -rounds times an informer's full
// initial sync (client-go's shared informer with its defaults, a watch-list).
// At the first count also gets of random objects, lists of -protobuf-list-limit
// objects and a watch fan-out (-protobuf-watchers watchers of an empty
// namespace, -protobuf-watch-events creates at full speed, each delivery timed
// from its create's send). Before any of it, the bytes etcd holds per object
// when the server stores JSON (its default), protobuf or CBOR
// (--storage-media-type; two more server processes on their own etcd
// prefixes, reached directly), and for the CRD.

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var protoOpts struct {
	enabled             bool
	counts              string
	bytes               int
	gets, lists, limit  int
	watchers, events    int
	stored, clientCount int
}

func init() {
	flag.BoolVar(&protoOpts.enabled, "protobuf", false, "the protobuf comparison instead: examples/wardle's Flunder through kube-apiserver to the generated server in protobuf and in JSON, and as a CRD (JSON): informer syncs, gets, lists, watch fan-out, client CPU, stored bytes (see protobuf.go)")
	flag.StringVar(&protoOpts.counts, "protobuf-counts", "10000,50000", "with -protobuf: objects an informer syncs, comma-separated, smallest first")
	flag.IntVar(&protoOpts.bytes, "protobuf-bytes", 1024, "with -protobuf: about this many bytes of JSON per object (an annotation pads it)")
	flag.IntVar(&protoOpts.gets, "protobuf-gets", 3000, "with -protobuf: gets per side per round")
	flag.IntVar(&protoOpts.lists, "protobuf-lists", 60, "with -protobuf: lists per side per round")
	flag.IntVar(&protoOpts.limit, "protobuf-list-limit", 500, "with -protobuf: objects per list")
	flag.IntVar(&protoOpts.watchers, "protobuf-watchers", 50, "with -protobuf: watchers of the watch fan-out")
	flag.IntVar(&protoOpts.events, "protobuf-watch-events", 200, "with -protobuf: objects created while they watch")
	flag.IntVar(&protoOpts.stored, "protobuf-stored", 200, "with -protobuf: objects created through each storage media type to measure the bytes etcd holds")
}

const (
	pbProtobuf = "protobuf"
	pbJSON     = "json"
	pbCRD      = "crd"
	pbSyncNS   = "sync"
	pbStoredNS = "stored"
	pbService  = "serverload-wardle"
	pbSvcNS    = "serverload"
)

var pbSides = []string{pbProtobuf, pbJSON, pbCRD}

// pbResult is one client operation on one side: what the client reported
// and the servers' CPU around it.
type pbResult struct {
	Side, Op, Load string
	Count, Round   int
	Client         clientResult
	KASCPU         time.Duration // kube-apiserver
	ApigenCPU      time.Duration // the generated server (0 for the CRD)
}

// clientResult is what testdata/wardleclient prints.
type clientResult struct {
	Op, ContentType, Group string
	OK, Errors             int
	Items, Missing         int
	WatchList              bool
	Wall, CPU, P50, P99    time.Duration
	FirstError             string
}

// storedSize is the bytes etcd holds per object of one storage.
type storedSize struct {
	Storage   string
	Objects   int
	MeanBytes float64
}

func runProtobuf(ctx context.Context, o *options, root, dir string) error {
	var counts []int
	for _, f := range strings.Split(protoOpts.counts, ",") {
		n, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || n < 1 {
			return fmt.Errorf("-protobuf-counts: %q is not a count", f)
		}
		counts = append(counts, int(n))
	}
	if !slices.IsSorted(counts) {
		return fmt.Errorf("-protobuf-counts: smallest first")
	}
	if o.smoke {
		counts = []int{300}
		protoOpts.gets, protoOpts.lists, protoOpts.limit, protoOpts.watchers, protoOpts.events, protoOpts.stored = 200, 10, 100, 5, 20, 20
	}
	pad := strings.Repeat("x", max(protoOpts.bytes-700, 0))
	flunder := *flunderKind
	flunder.Pad = pad
	crdKind := flunder
	crdKind.GV = schema.GroupVersion{Group: crdWardle, Version: "v1alpha1"}
	register(&crdKind)

	// kube-apiserver dials <service>.<namespace>.svc for the APIService.
	b := &bench{dir: dir, servingDNS: []string{pbService + "." + pbSvcNS + ".svc"}}
	w, stop, err := b.buildAndStart(o, root, true)
	if err != nil {
		return err
	}
	defer stop()
	kubectl, bin := w.kubectl, w.wardle
	log.Printf("building the client of %s ...", o.wardle)
	client, err := buildWardleClient(root, dir)
	if err != nil {
		return err
	}

	namespaces := []string{"warm", pbSvcNS, pbSyncNS, pbStoredNS}
	for r := 1; r <= o.rounds; r++ {
		for _, s := range pbSides {
			namespaces = append(namespaces, fanNamespace(s, r))
		}
	}
	if err := createNamespaces(ctx, b.kas, namespaces); err != nil {
		return err
	}

	// The server, in cluster mode with kube-apiserver's admin for its
	// delegation (the clients are the admin too: system:masters needs no
	// SubjectAccessReview, on either path), and its APIService.
	srv, err := b.start(ctx, server{Name: "apigen", Bin: bin, Kind: &flunder}, "apigen")
	if err != nil {
		return err
	}
	defer srv.stop()
	// /readyz can answer before the server reads kube-apiserver's front-proxy
	// CA: the first create admitted.
	if err := waitAdmits(ctx, srv.target, 0); err != nil {
		return err
	}
	port, _ := strconv.Atoi(srv.procs[0].URL[strings.LastIndexByte(srv.procs[0].URL, ':')+1:])
	c := &crdBench{bench: b, kubectl: kubectl}
	if err := c.apply(wardleAPIService(port, b.servingCA.CertPEM)); err != nil {
		return err
	}
	if _, err := c.run("", "wait", "--for=condition=Available", "--timeout=90s", "apiservice/v1alpha1.wardle.example.com"); err != nil {
		return fmt.Errorf("%w\n%s", err, srv.proc.Describe())
	}
	if err := applyFlunderCRD(kubectl, b.kas.AdminKubeconfig); err != nil {
		return err
	}
	crd, err := kasTarget(pbCRD, b.kas, &crdKind)
	if err != nil {
		return err
	}
	defer closeIdle(crd.rc.Client)

	stored, err := pbStoredBytes(ctx, o, b, bin, srv.target, crd.target)
	if err != nil {
		return fmt.Errorf("stored bytes: %w", err)
	}
	for _, s := range stored {
		log.Printf("stored bytes, %s: %.0f per object (%d objects)", s.Storage, s.MeanBytes, s.Objects)
	}

	kasPid, apigenPid := b.kas.Process.Pid(), srv.proc.Pid()
	runClient := func(side, op string, count, round int, args ...string) (*pbResult, error) {
		group, ct := "wardle.example.com", side
		if side == pbCRD {
			group, ct = crdWardle, "json"
		}
		args = append([]string{"-kubeconfig", b.kas.AdminKubeconfig, "-group", group, "-content-type", ct, "-op", op}, args...)
		res := &pbResult{Side: side, Op: op, Count: count, Round: round, Load: load1()}
		k0, a0 := processCPU(kasPid), processCPU(apigenPid)
		cmd := exec.CommandContext(ctx, client, args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("%s %s: %v\n%s", side, op, err, stderr.String())
		}
		res.KASCPU, res.ApigenCPU = processCPU(kasPid)-k0, processCPU(apigenPid)-a0
		if side == pbCRD {
			res.ApigenCPU = 0
		}
		if err := json.Unmarshal(stdout.Bytes(), &res.Client); err != nil {
			return nil, fmt.Errorf("%s %s: %v: %s", side, op, err, stdout.String())
		}
		if res.Client.Errors > 0 {
			log.Printf("%s %s: %d errors, the first: %s", side, op, res.Client.Errors, res.Client.FirstError)
		}
		return res, nil
	}

	var results []*pbResult
	save := func() error {
		return writeResults(o, reportProtobuf(o, counts, results, stored), struct {
			Stored  []storedSize
			Results []*pbResult
		}{stored, results})
	}
	for ci, n := range counts {
		for _, t := range []*target{srv.target, crd.target} {
			log.Printf("%s: filling %s to %d objects (%d workers)", t.name, pbSyncNS, n, o.prepareWorkers)
			begin := time.Now()
			if err := ensureObjects(ctx, t, pbSyncNS, n, o.prepareWorkers); err != nil {
				return fmt.Errorf("%s: filling: %w", t.name, err)
			}
			log.Printf("%s: filled in %v", t.name, time.Since(begin).Round(time.Second))
		}
		for round := 1; round <= o.rounds; round++ {
			for _, side := range pbRotate(round) {
				r, err := runClient(side, "sync", n, round, "-namespace", pbSyncNS, "-timeout", "10m")
				if err != nil {
					return err
				}
				if r.Client.Items != n {
					return fmt.Errorf("%s: the informer synced %d objects, want %d", side, r.Client.Items, n)
				}
				log.Printf("round %d/%d, %d objects, %s: informer synced in %v, client CPU %v, kube-apiserver CPU %v, apigen CPU %v (load %s)",
					round, o.rounds, n, side, r.Client.Wall.Round(time.Millisecond), r.Client.CPU, r.KASCPU, r.ApigenCPU, r.Load)
				results = append(results, r)
			}
			if err := save(); err != nil {
				return err
			}
		}
		if ci > 0 {
			continue
		}
		// Gets, lists and the watch fan-out, at the first count.
		for round := 1; round <= o.rounds; round++ {
			for _, op := range []string{"get", "list", "watch"} {
				for _, side := range pbRotate(round) {
					var args []string
					switch op {
					case "get":
						args = []string{"-namespace", pbSyncNS, "-count", strconv.Itoa(protoOpts.gets), "-objects", strconv.Itoa(n), "-workers", strconv.Itoa(o.Workers)}
					case "list":
						args = []string{"-namespace", pbSyncNS, "-count", strconv.Itoa(protoOpts.lists), "-limit", strconv.Itoa(min(protoOpts.limit, n)), "-workers", strconv.Itoa(o.Workers)}
					case "watch":
						args = []string{"-namespace", fanNamespace(side, round), "-count", strconv.Itoa(protoOpts.events), "-watchers", strconv.Itoa(protoOpts.watchers),
							"-workers", strconv.Itoa(o.Workers), "-pad", pad}
					}
					r, err := runClient(side, op, n, round, args...)
					if err != nil {
						return err
					}
					log.Printf("round %d/%d %s %s: %d ok in %v, p99 %v, client CPU %v (load %s)", round, o.rounds, side, op, r.Client.OK,
						r.Client.Wall.Round(time.Millisecond), r.Client.P99.Round(100*time.Microsecond), r.Client.CPU, r.Load)
					results = append(results, r)
				}
			}
			if err := save(); err != nil {
				return err
			}
		}
	}
	fmt.Print(reportProtobuf(o, counts, results, stored))
	return save()
}

// pbRotate is the order of the sides in round r: each goes first as often.
func pbRotate(round int) []string {
	var order []string
	for i := range pbSides {
		order = append(order, pbSides[(i+round-1)%len(pbSides)])
	}
	return order
}

// buildWardleClient builds testdata/wardleclient in the copy of the project
// buildWardle made (dir/wardle), with its Go types and modules.
func buildWardleClient(root, dir string) (string, error) {
	src, err := os.ReadFile(filepath.Join(root, "hack", "bench", "serverload", "testdata", "wardleclient", "main.go"))
	if err != nil {
		return "", err
	}
	proj := filepath.Join(dir, "wardle")
	if err := os.MkdirAll(filepath.Join(proj, "cmd", "serverload-client"), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(proj, "cmd", "serverload-client", "main.go"), src, 0o644); err != nil {
		return "", err
	}
	out := filepath.Join(dir, "serverload-client")
	env := goEnv()
	return out, command(proj, env, "go", "build", "-mod=readonly", "-trimpath", "-o", out, "./cmd/serverload-client")
}

// wardleAPIService registers the server for wardle.example.com/v1alpha1,
// behind a Service of type ExternalName for 127.0.0.1 on its port.
func wardleAPIService(port int, caPEM []byte) string {
	return externalNameService(pbSvcNS, pbService, port) + "---\n" +
		apiServiceManifest(flunderKind.GV.Group, flunderKind.GV.Version, pbSvcNS, pbService, port, caPEM)
}

// pbStoredBytes creates -protobuf-stored objects in namespace stored through
// the server (which stores JSON), through two more processes of it storing
// protobuf and CBOR under their own etcd prefixes, and through the CRD, then
// reads what etcd holds for each.
func pbStoredBytes(ctx context.Context, o *options, b *bench, bin string, jsonT, crdT *target) ([]storedSize, error) {
	type store struct {
		name, mediaType, prefix string
		t                       *target
	}
	stores := []store{{name: "json (the server's default)", t: jsonT}, {name: "protobuf", mediaType: "application/vnd.kubernetes.protobuf", prefix: "/registry-protobuf"},
		{name: "cbor", mediaType: "application/cbor", prefix: "/registry-cbor"}, {name: "crd (kube-apiserver, JSON)", t: crdT}}
	for i := range stores {
		s := &stores[i]
		if s.t == nil {
			r, err := b.start(ctx, server{Name: "apigen-" + s.name, Bin: bin, Kind: jsonT.k, extraArgs: []string{"--storage-media-type=" + s.mediaType, "--etcd-prefix=" + s.prefix}}, "apigen-"+s.name)
			if err != nil {
				return nil, err
			}
			defer r.stop()
			if err := waitAdmits(ctx, r.target, 0); err != nil {
				return nil, fmt.Errorf("%s: %w", s.name, err)
			}
			s.t = r.target
		}
		if err := ensureObjects(ctx, s.t, pbStoredNS, protoOpts.stored, o.Workers); err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
	}
	tlsConfig, err := b.etcd.TLSConfig()
	if err != nil {
		return nil, err
	}
	ec, err := clientv3.New(clientv3.Config{Endpoints: b.etcd.Endpoints, TLS: tlsConfig, DialTimeout: 10 * time.Second})
	if err != nil {
		return nil, err
	}
	defer ec.Close()
	// The keys of namespace stored, by their first path element (the
	// server's default prefix /registry/wardle and the CRD's
	// /registry/crd.wardle.example.com share /registry).
	keys, err := ec.Get(ctx, "/", clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		return nil, err
	}
	sizes := map[string][]int{}
	for _, kv := range keys.Kvs {
		k := string(kv.Key)
		if !strings.Contains(k, "/flunders/"+pbStoredNS+"/") {
			continue
		}
		v, err := ec.Get(ctx, k)
		if err != nil {
			return nil, err
		}
		if len(v.Kvs) == 1 {
			which := strings.SplitN(k, "/", 4)[1]
			if which == "registry" {
				which += "/" + strings.SplitN(k, "/", 4)[2]
			}
			sizes[which] = append(sizes[which], len(v.Kvs[0].Value))
		}
	}
	keyOf := map[string]string{stores[0].name: "", stores[1].name: "registry-protobuf", stores[2].name: "registry-cbor", stores[3].name: "registry/" + crdWardle}
	var out []storedSize
	for _, s := range stores {
		k := keyOf[s.name]
		if k == "" { // the server's default prefix: the one under /registry that is not the CRD's
			for w := range sizes {
				if strings.HasPrefix(w, "registry/") && w != "registry/"+crdWardle {
					k = w
				}
			}
		}
		xs := sizes[k]
		if len(xs) != protoOpts.stored {
			return nil, fmt.Errorf("%s: %d objects under /%s in etcd, want %d (found %v)", s.name, len(xs), k, protoOpts.stored, slices.Sorted(func(yield func(string) bool) {
				for w := range sizes {
					if !yield(w) {
						return
					}
				}
			}))
		}
		sum := 0
		for _, x := range xs {
			sum += x
		}
		out = append(out, storedSize{Storage: s.name, Objects: len(xs), MeanBytes: float64(sum) / float64(len(xs))})
	}
	return out, nil
}

// reportProtobuf is the summary: the informer syncs per count with the
// ratios to the CRD against the targets, gets, lists and the watch fan-out,
// and the stored bytes.
func reportProtobuf(o *options, counts []int, results []*pbResult, stored []storedSize) string {
	var sb strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&sb, format, a...) }
	var loads []float64
	for _, r := range results {
		if l, err := strconv.ParseFloat(r.Load, 64); err == nil {
			loads = append(loads, l)
		}
	}
	loadRange := "?"
	if len(loads) > 0 {
		loadRange = fmt.Sprintf("%.1f–%.1f", slices.Min(loads), slices.Max(loads))
	}
	p("examples/wardle's Flunder (~%d B of JSON each) through kube-apiserver: to the generated server in protobuf (protobuf) and in JSON (json), and as a CRD of the same fields (crd, JSON); %d round%s, %s, %s, 1-minute load %s.\n\n",
		protoOpts.bytes, o.rounds, plural(o.rounds), machine(), time.Now().UTC().Format("2006-01-02T15:04Z"), loadRange)
	p("Each client operation is a process of its own with the project's typed Flunder (the same code for every side); client CPU is that process's during the operation (getrusage); server CPU is kube-apiserver's plus, for protobuf and json, the generated server's. Medians over the rounds; ratios are medians of per-round ratios.\n\n")

	pick := func(op, side string, count int) []*pbResult {
		var out []*pbResult
		for _, r := range results {
			if r.Op == op && r.Side == side && r.Count == count {
				out = append(out, r)
			}
		}
		return out
	}
	med := func(rs []*pbResult, f func(*pbResult) float64) float64 {
		var xs []float64
		for _, r := range rs {
			xs = append(xs, f(r))
		}
		return median(xs)
	}
	// ratio is the median over rounds of f(a)/f(b).
	ratio := func(op, a, b string, count int, f func(*pbResult) float64) float64 {
		var xs []float64
		for _, ra := range pick(op, a, count) {
			for _, rb := range pick(op, b, count) {
				if ra.Round == rb.Round && f(rb) != 0 {
					xs = append(xs, f(ra)/f(rb))
				}
			}
		}
		return median(xs)
	}
	perSec := func(r *pbResult) float64 { return float64(r.Client.Items) / max(r.Client.Wall.Seconds(), 1e-9) }
	clientCPU := func(r *pbResult) float64 { return r.Client.CPU.Seconds() }
	serverCPU := func(r *pbResult) float64 { return (r.KASCPU + r.ApigenCPU).Seconds() }
	wall := func(r *pbResult) float64 { return r.Client.Wall.Seconds() }

	p("### Informer initial sync\n\n")
	p("| objects | side | sync time | objects/s | client CPU | server CPU (kube-apiserver + apigen) | throughput / crd | client CPU / crd |\n|---|---|---|---|---|---|---|---|\n")
	type verdict struct {
		n        int
		tp, cpuR float64
	}
	var verdicts []verdict
	for _, n := range counts {
		for _, side := range pbSides {
			rs := pick("sync", side, n)
			if len(rs) == 0 {
				continue
			}
			how := ""
			if rs[0].Client.WatchList {
				how = " (watch-list)"
			}
			server := ms(med(rs, func(r *pbResult) float64 { return r.KASCPU.Seconds() }))
			if side != pbCRD {
				server += " + " + ms(med(rs, func(r *pbResult) float64 { return r.ApigenCPU.Seconds() }))
			}
			tr, cr := "", ""
			if side != pbCRD {
				tp, cpuR := ratio("sync", side, pbCRD, n, perSec), ratio("sync", side, pbCRD, n, clientCPU)
				tr, cr = fmt.Sprintf("**%.2f×**", tp), fmt.Sprintf("**%.2f×**", cpuR)
				if side == pbProtobuf {
					verdicts = append(verdicts, verdict{n, tp, cpuR})
				}
			}
			p("| %d | %s | %s%s | %.0f | %s | %s | %s | %s |\n", n, side, ms(med(rs, wall)), how, med(rs, perSec), ms(med(rs, clientCPU)), server, tr, cr)
		}
	}
	p("\n")
	for _, v := range verdicts {
		met := func(ok bool) string {
			if ok {
				return "met"
			}
			return "not met"
		}
		p("%d objects, protobuf against the CRD: sync throughput %.2f× (target ≥ 2×: %s), client CPU %.2f× (target ≤ 0.5×: %s).\n",
			v.n, v.tp, met(v.tp >= 2), v.cpuR, met(v.cpuR <= 0.5))
	}
	p("\n")

	if n := counts[0]; len(pick("get", pbProtobuf, n)) > 0 {
		p("### Gets, lists and watch fan-out (%d objects in the namespace)\n\n", n)
		p("%d gets of random objects and %d lists of %d objects per side per round, %d workers; watch: %d watchers of an empty namespace, %d creates at full speed (%d workers), deliveries timed from each create's send.\n\n",
			protoOpts.gets, protoOpts.lists, min(protoOpts.limit, n), o.Workers, protoOpts.watchers, protoOpts.events, o.Workers)
		p("| operation | side | ops/s | p50 | p99 | client CPU/op | server CPU/op | throughput / json | client CPU/op / json |\n|---|---|---|---|---|---|---|---|---|\n")
		ops := func(r *pbResult) float64 { return float64(r.Client.OK) / max(r.Client.Wall.Seconds(), 1e-9) }
		per := func(f func(*pbResult) float64) func(*pbResult) float64 {
			return func(r *pbResult) float64 { return f(r) / float64(max(r.Client.OK, 1)) }
		}
		for _, op := range []string{"get", "list", "watch"} {
			for _, side := range pbSides {
				rs := pick(op, side, n)
				if len(rs) == 0 {
					continue
				}
				name := op
				switch op {
				case "list":
					name = fmt.Sprintf("list of %d", min(protoOpts.limit, n))
				case "watch":
					name = fmt.Sprintf("watch, %d watchers (deliveries)", protoOpts.watchers)
				}
				var missing, errs int
				for _, r := range rs {
					missing, errs = missing+r.Client.Missing, errs+r.Client.Errors
				}
				note := ""
				if missing > 0 {
					note += fmt.Sprintf(", %d missing", missing)
				}
				if errs > 0 {
					note += fmt.Sprintf(", %d errors", errs)
				}
				tr, cr := "", ""
				if side != pbJSON {
					tr, cr = fmt.Sprintf("%.2f×", ratio(op, side, pbJSON, n, ops)), fmt.Sprintf("%.2f×", ratio(op, side, pbJSON, n, per(clientCPU)))
				}
				p("| %s | %s | %.0f%s | %s | %s | %s | %s | %s | %s |\n", name, side, med(rs, ops), note,
					ms(med(rs, func(r *pbResult) float64 { return r.Client.P50.Seconds() })), ms(med(rs, func(r *pbResult) float64 { return r.Client.P99.Seconds() })),
					ms(med(rs, per(clientCPU))), ms(med(rs, per(serverCPU))), tr, cr)
			}
		}
		p("\n")
	}

	if len(stored) > 0 {
		p("### Stored bytes per object\n\n")
		p("What etcd holds for each of %d objects (~%d B of JSON on the wire) created in an empty namespace, by the server's --storage-media-type:\n\n", stored[0].Objects, protoOpts.bytes)
		p("| storage | bytes per object | / JSON |\n|---|---|---|\n")
		for _, s := range stored {
			p("| %s | %.0f | %.2f |\n", s.Storage, s.MeanBytes, s.MeanBytes/stored[0].MeanBytes)
		}
		p("\n")
	}
	return sb.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
