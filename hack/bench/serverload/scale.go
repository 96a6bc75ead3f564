package main

// The scale envelope (-scale, make bench-scale): how the generated server's
// costs grow with the number of objects it holds, on each storage, against
// the same kind as a CRD in kube-apiserver, side by side in one run.
//
// Sides (-scale-sides):
//
//   - embedded-etcd: examples/wardle in local mode, etcd in its process;
//   - etcd-cluster: examples/wardle in cluster mode on a 3-member etcd
//     cluster (test/cluster), kube-apiserver (on the same cluster) for
//     delegated authentication and authorization;
//   - postgres: examples/wardle in local mode on Postgres through kine
//     (durable at each commit, as etcd is);
//   - crd: wardle's Flunder as a CustomResourceDefinition (group
//     crd.wardle.example.com, a schema with FlunderSpec's and FlunderStatus's
//     fields) in kube-apiserver on the same etcd cluster.
//
// For each count of -scale-counts, smallest first, each side in turn: fill
// one namespace up to the count (the fill time is that of the objects added
// since the last count through the API; beyond -scale-direct-from they are
// written straight to storage, direct.go), restart the server
// (kube-apiserver for the CRD: a new one on the same etcd, the first one
// stays for the cluster-mode server's delegation) and time it to /readyz,
// read its RSS, then a paged list of the
// namespace (limit -scale-page), an unpaged list (60 s at most: where it
// fits), an informer's initial sync with client-go's defaults (watch-list
// where the WatchListClient gate is on, as it is by default), and a watch
// fan-out to -scale-watchers watchers (creates at a fixed rate into an empty
// namespace, each delivery timed from the create's send) while gets and
// updates of the filled namespace run beside it, whose p99 is taken under
// that load. Every object carries an annotation that pads it to about
// -scale-bytes bytes of JSON.
//
// The generated server's measured start runs in a memory cgroup of
// -scale-memory-limit (by default the limit examples/wardle's generated
// Deployment sets), as the kubelet runs its container; kube-apiserver's in
// one of -scale-crd-memory-limit, if set. After the unpaged list,
// -scale-lists clients list everything unpaged at once for a minute, each
// retrying after a 429 as its Retry-After says: the server must serve them
// or turn them away, and never be killed for memory. A side whose server
// is killed keeps what it measured, and the kill is its result.

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/tools/cache"

	"github.com/apigen-dev/apigen/test/cluster"
)

var scaleOpts struct {
	enabled    bool
	counts     string
	bytes      int
	sides      string
	page       int
	watchers   int
	directFrom int
	memory     string
	crdMemory  string
	lists      int
}

func init() {
	flag.BoolVar(&scaleOpts.enabled, "scale", false, "the scale envelope instead: examples/wardle's kind at each of -scale-counts objects on embedded etcd, an etcd cluster of 3 and Postgres, and as a CRD in kube-apiserver (see scale.go)")
	flag.StringVar(&scaleOpts.counts, "scale-counts", "10000,100000", "with -scale: object counts, comma-separated, smallest first (1e6 is one more)")
	flag.IntVar(&scaleOpts.bytes, "scale-bytes", 1024, "with -scale: about this many bytes of JSON per object (an annotation pads it)")
	flag.StringVar(&scaleOpts.sides, "scale-sides", strings.Join(scaleSideNames, ","), "with -scale: the sides, comma-separated")
	flag.IntVar(&scaleOpts.page, "scale-page", 500, "with -scale: the paged list's limit")
	flag.IntVar(&scaleOpts.watchers, "scale-watchers", 100, "with -scale: watchers of the watch fan-out")
	flag.StringVar(&scaleOpts.memory, "scale-memory-limit", "deployment", "with -scale: the memory limit of the generated server's cgroup (a quantity: 8Gi; deployment: what examples/wardle's generated Deployment sets; none)")
	flag.StringVar(&scaleOpts.crdMemory, "scale-crd-memory-limit", "none", "with -scale: the memory limit of the CRD side's kube-apiserver's cgroup (a quantity, or none)")
	flag.IntVar(&scaleOpts.lists, "scale-lists", 8, "with -scale: clients listing everything unpaged at once for a minute (0: none)")
	flag.IntVar(&scaleOpts.directFrom, "scale-direct-from", 100000, "with -scale: objects up to this many are created through the API, the rest written straight to storage as clones of one created through the API (direct.go; 0: all through the API)")
}

const (
	scEmbedded = "embedded-etcd"
	scCluster  = "etcd-cluster"
	scPostgres = "postgres"
	scCRD      = "crd"
	scaleNS    = "scale"
	crdWardle  = "crd.wardle.example.com"
)

var scaleSideNames = []string{scEmbedded, scCluster, scPostgres, scCRD}

// scaleResult is one side's figures at one count.
type scaleResult struct {
	Side, Load       string
	Count, Added     int
	Fill             time.Duration // the API's creates
	Direct           int           // of Added, written to storage (-scale-direct-from)
	DirectFill       time.Duration
	ObjectBytes      int
	StorageBytes     int64         // the etcd database file after the run (embedded-etcd only)
	Startup          time.Duration // exec to /readyz
	Serving          time.Duration // exec to the first create admitted
	RSS, HWM         int64         // at /readyz; HWM is the peak after every phase
	RSSSynced        int64         // after the informer's sync (the watch cache filled)
	HWMSynced        int64         // the peak RSS until then
	PagedWall        time.Duration
	PagedCPU         time.Duration // the server's process (kube-apiserver for the CRD)
	PagedStorageCPU  time.Duration // the storage's processes outside it
	FirstPage        time.Duration // the paged list's first page
	LastPage         time.Duration // and its last
	PagesCached      int           // pages the watch cache served
	PagesStored      int           // pages the storage served
	PagesFetched     int           // objects the watch cache fetched to serve its pages
	UnpagedWall      time.Duration
	UnpagedCPU       time.Duration
	UnpagedBytes     int
	UnpagedErr       string `json:",omitempty"`
	MemoryLimit      int64  // of the server's cgroup, 0: none
	Lists            listsResult
	CgroupPeak       int64  // the server's cgroup at most, page cache included
	Killed           string `json:",omitempty"` // how the server died, if it did
	InformerWall     time.Duration
	InformerCPU      time.Duration
	InformerItems    int
	WatchList        bool
	FanP50, FanP99   time.Duration
	FanMissing       int
	GetP99, UpdP99   time.Duration
	GetOK, UpdOK     int
	GetErrs, UpdErrs int
	After            int64 // RSS after every phase
}

// scaleSide is how to start one side, and what serves it.
type scaleSide struct {
	name string
	// start starts (or restarts) the side's server, in cgroup cg if not
	// nil, and returns its target and what stops it; the server process is
	// procs[0], the storage's processes the others.
	start func(ctx context.Context, logName string, cg *cluster.MemoryCgroup) (*running, func(), error)
	// memoryLimit is the limit of the server's cgroup at its measured
	// start (0: none).
	memoryLimit int64
	// storageBytes, where known, is the size of the side's database on disk.
	storageBytes func() int64
	// raw reaches the side's storage for the direct fill, under one of
	// rawPrefixes (the resource's keys, …/flunders/); rawStopped: written
	// with the server stopped.
	raw         func(ctx context.Context) (rawStore, error)
	rawPrefixes []string
	rawStopped  bool
}

func runScale(ctx context.Context, o *options, root, dir string) error {
	var counts []int
	for _, f := range strings.Split(scaleOpts.counts, ",") {
		n, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || n < 1 {
			return fmt.Errorf("-scale-counts: %q is not a count", f)
		}
		counts = append(counts, int(n))
	}
	if !slices.IsSorted(counts) {
		return fmt.Errorf("-scale-counts: smallest first")
	}
	want := strings.Split(scaleOpts.sides, ",")
	for _, s := range want {
		if !slices.Contains(scaleSideNames, s) {
			return fmt.Errorf("-scale-sides: %q: want some of %v", s, scaleSideNames)
		}
	}
	memoryLimit, err := parseMemoryLimit(scaleOpts.memory, root)
	if err != nil {
		return fmt.Errorf("-scale-memory-limit: %w", err)
	}
	crdMemoryLimit, err := parseMemoryLimit(scaleOpts.crdMemory, root)
	if err != nil {
		return fmt.Errorf("-scale-crd-memory-limit: %w", err)
	}
	pad := strings.Repeat("x", max(scaleOpts.bytes-700, 0))
	flunder := *flunderKind
	flunder.Pad = pad
	crdKind := flunder
	crdKind.GV = schema.GroupVersion{Group: crdWardle, Version: "v1alpha1"}
	register(&crdKind)

	// The control plane's kube-apiserver keeps no watch cache: the CRD
	// side's measures are those of a kube-apiserver of its own, and two
	// holding every object would need twice the memory at 10^6.
	b := &bench{dir: dir, etcdMembers: 3, kasArgs: []string{"--watch-cache=false"}}
	w, stop, err := b.buildAndStart(o, root, true)
	if err != nil {
		return err
	}
	defer stop()
	bins, kubectl, bin := w.bins, w.kubectl, w.wardle
	var etcdProcs []*proc
	for _, m := range b.etcd.Members {
		etcdProcs = append(etcdProcs, &proc{Name: "etcd " + m.Name, Pid: m.Process.Pid()})
	}
	namespaces := []string{"warm", scaleNS}
	for _, n := range counts {
		for _, s := range want {
			namespaces = append(namespaces, fanNamespace(s, n))
		}
	}
	if err := createNamespaces(ctx, b.kas, namespaces); err != nil {
		return err
	}

	var sides []scaleSide
	for _, name := range want {
		switch name {
		case scEmbedded:
			data := filepath.Join(dir, name+"-data")
			sides = append(sides, scaleSide{name, func(ctx context.Context, logName string, cg *cluster.MemoryCgroup) (*running, func(), error) {
				limited, err := inCgroup(cg, bin, dir)
				if err != nil {
					return nil, nil, err
				}
				r, err := b.startLocal(ctx, name, limited, data, "", logName, storageProc{})
				if err != nil {
					return nil, nil, err
				}
				r.k = &flunder
				return r, r.stop, nil
			}, memoryLimit, func() int64 { return etcdDBSize(data) }, localEtcdRaw(data), wardleKeyPrefixes, false})
		case scCluster:
			sides = append(sides, scaleSide{name, func(ctx context.Context, logName string, cg *cluster.MemoryCgroup) (*running, func(), error) {
				limited, err := inCgroup(cg, bin, dir)
				if err != nil {
					return nil, nil, err
				}
				r, err := b.start(ctx, server{Name: name, Bin: limited, Kind: &flunder}, logName)
				if err != nil {
					return nil, nil, err
				}
				r.procs = append(r.procs, etcdProcs...)
				return r, r.stop, nil
			}, memoryLimit, nil, clusterEtcdRaw(b.etcd), wardleKeyPrefixes, false})
		case scPostgres:
			log.Printf("starting postgres ...")
			d, err := cluster.StartPostgres(cluster.DatabaseOptions{Durable: true})
			if err != nil {
				return fmt.Errorf("postgres: %w", err)
			}
			defer d.Close()
			data := filepath.Join(dir, name+"-data")
			sp := storageProc{d.Name + " server", d.Process.Pid(), true}
			sides = append(sides, scaleSide{name, func(ctx context.Context, logName string, cg *cluster.MemoryCgroup) (*running, func(), error) {
				limited, err := inCgroup(cg, bin, dir)
				if err != nil {
					return nil, nil, err
				}
				r, err := b.startLocal(ctx, name, limited, data, d.Endpoint, logName, sp)
				if err != nil {
					return nil, nil, err
				}
				r.k = &flunder
				return r, r.stop, nil
			}, memoryLimit, nil, kineRaw(d.Endpoint), wardleKeyPrefixes, true})
		case scCRD:
			if err := applyFlunderCRD(kubectl, b.kas.AdminKubeconfig); err != nil {
				return err
			}
			sides = append(sides, scaleSide{name, func(ctx context.Context, logName string, cg *cluster.MemoryCgroup) (*running, func(), error) {
				// The first start is the control plane's kube-apiserver (it
				// stays: the cluster-mode server delegates to it); each
				// restart is a new one on the same etcd.
				kas, begin := b.kas, time.Now()
				if !strings.HasSuffix(logName, "-fill") {
					limited, err := inCgroup(cg, bins.KubeAPIServer, dir)
					if err != nil {
						return nil, nil, err
					}
					k, err := cluster.StartKubeAPIServer(limited, filepath.Join(dir, logName), b.etcd)
					if err != nil {
						return nil, nil, err
					}
					kas = k
				}
				took := time.Since(begin)
				r, err := kasTarget(name, kas, &crdKind)
				if err != nil {
					if kas != b.kas {
						kas.Stop()
					}
					return nil, nil, err
				}
				r.startup = took
				r.procs = append(r.procs, etcdProcs...)
				stop := func() { closeIdle(r.rc.Client) }
				if kas != b.kas {
					stop = r.stop // kube-apiserver's process
				}
				return r, stop, nil
			}, crdMemoryLimit, nil, clusterEtcdRaw(b.etcd), []string{"/registry/" + crdWardle + "/flunders/"}, false})
		}
	}

	var results []*scaleResult
	for _, n := range counts {
		for _, s := range sides {
			r, err := scaleOne(ctx, o, s, n)
			if err != nil {
				return fmt.Errorf("%s at %d: %w", s.name, n, err)
			}
			log.Printf("%s at %d: %s", s.name, n, briefScale(r))
			results = append(results, r)
			if err := writeScale(o, results); err != nil {
				return err
			}
		}
	}
	fmt.Print(reportScale(results))
	return nil
}

// fanNamespace is the empty namespace a watch fan-out of side writes in: one
// for each object count (-scale) or round (-protobuf).
func fanNamespace(side string, n int) string { return fmt.Sprintf("fan-%s-%d", side, n) }

// kasTarget is kind k served by kube-apiserver kas, reached as its admin on
// connections of the load generator's own (one per client).
func kasTarget(name string, kas *cluster.KubeAPIServer, k *kind) (*running, error) {
	cfg, err := kas.AdminConfig()
	if err != nil {
		return nil, err
	}
	t, err := configTarget(name, "kube-apiserver", cfg, k, kas.Process.Pid())
	if err != nil {
		return nil, err
	}
	return &running{target: t, proc: kas.Process}, nil
}

// applyFlunderCRD installs wardle's Flunder as a CRD in group crdWardle: the
// fields of FlunderSpec and FlunderStatus, status as a subresource.
func applyFlunderCRD(kubectl, kubeconfig string) error {
	crd := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: flunders.` + crdWardle + `
spec:
  group: ` + crdWardle + `
  scope: Namespaced
  names: {plural: flunders, singular: flunder, kind: Flunder, listKind: FlunderList}
  versions:
  - name: v1alpha1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              reference: {type: string}
              referenceType: {type: string, enum: [Flunder, Fischer], default: Flunder}
              replicas: {type: integer, format: int32}
          status:
            type: object
            properties:
              replicas: {type: integer, format: int32}
              selector: {type: string}
              conditions:
                type: array
                items:
                  type: object
                  required: [type, status, lastTransitionTime, reason, message]
                  properties:
                    type: {type: string}
                    status: {type: string}
                    observedGeneration: {type: integer, format: int64}
                    lastTransitionTime: {type: string, format: date-time}
                    reason: {type: string}
                    message: {type: string}
`
	c := &crdBench{bench: &bench{}, kubectl: kubectl}
	c.kas = &cluster.KubeAPIServer{AdminKubeconfig: kubeconfig}
	if err := c.apply(crd); err != nil {
		return err
	}
	_, err := c.run("", "wait", "--for=condition=Established", "--timeout=60s", "crd/flunders."+crdWardle)
	return err
}

// scaleOne fills s's namespace to n objects, restarts s and measures it.
func scaleOne(ctx context.Context, o *options, s scaleSide, n int) (*scaleResult, error) {
	res := &scaleResult{Side: s.name, Count: n, Load: load1()}
	if err := fillScale(ctx, o, s, n, res); err != nil {
		return nil, err
	}

	var cg *cluster.MemoryCgroup
	if s.memoryLimit > 0 {
		var err error
		cg, err = cluster.NewMemoryCgroup(fmt.Sprintf("serverload-%s-%d-%d", s.name, n, os.Getpid()), s.memoryLimit)
		if err != nil {
			return nil, err
		}
		defer cg.Remove()
		res.MemoryLimit = s.memoryLimit
	}
	// killed records the server's death for memory, if that is what ended a
	// phase: the limit found.
	killed := func(r *running, phase string, err error) (*scaleResult, error) {
		if cg == nil || (r != nil && !r.proc.Exited()) {
			return nil, err
		}
		if kills, _ := cg.OOMKills(); kills > 0 {
			res.CgroupPeak = cg.Peak()
			res.Killed = fmt.Sprintf("killed for memory during the %s (%d OOM kills in its cgroup of %s)", phase, kills, mib(s.memoryLimit))
			return res, nil
		}
		return nil, err
	}
	r, stop, err := s.start(ctx, fmt.Sprintf("%s-%d", s.name, n), cg)
	if err != nil {
		return killed(nil, "start", fmt.Errorf("restart: %w", err))
	}
	defer stop()
	// The phases end when the server does: a client would retry a dead
	// server until its own timeout.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-r.proc.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	res.Startup = r.startup
	// /readyz can answer before the server authenticates the front proxy
	// (it reads the CA from kube-apiserver): the first admitted create too.
	begin := time.Now()
	if err := waitAdmits(ctx, r.target, 1); err != nil {
		return nil, err
	}
	res.Serving = res.Startup + time.Since(begin)
	m, err := readMemory(r.proc.Pid())
	if err != nil {
		return nil, err
	}
	res.RSS = m.RSS
	t := r.target
	server := t.procs[0].Name
	split := func(before map[string]time.Duration) (own, storage time.Duration) {
		for name, after := range t.cpu() {
			if name == server {
				own += after - before[name]
			} else {
				storage += after - before[name]
			}
		}
		return own, storage
	}

	// An informer's initial sync with client-go's defaults, first: a
	// watch-list is served from the watch cache once it is filled, so this
	// is also how long after /readyz the server serves from a full cache.
	res.WatchList = clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient)
	before, begin := t.cpu(), time.Now()
	items, err := informerSync(ctx, t)
	if err != nil {
		return killed(r, "informer's sync", fmt.Errorf("informer: %w", err))
	}
	res.InformerWall, res.InformerItems = time.Since(begin), items
	res.InformerCPU, _ = split(before)

	if m, err = readMemory(r.proc.Pid()); err != nil {
		return nil, err
	}
	res.RSSSynced, res.HWMSynced = m.RSS, m.HWM

	// The paged list of everything, its first and last pages timed: a page
	// that costs what remains after it makes the whole list grow with the
	// square of the count.
	var pages []time.Duration
	listedBefore, err := listsServed(ctx, t)
	if err != nil {
		return nil, err
	}
	before, begin = t.cpu(), time.Now()
	_, items, err = t.listPages(ctx, scaleNS, scaleOpts.page, func(took time.Duration) {
		pages = append(pages, took)
	})
	if err != nil {
		return killed(r, "paged list", fmt.Errorf("paged list: %w", err))
	}
	if items != n {
		return nil, fmt.Errorf("paged list: %d items, want %d", items, n)
	}
	res.PagedWall = time.Since(begin)
	res.FirstPage, res.LastPage = pages[0], pages[len(pages)-1]
	listedAfter, err := listsServed(ctx, t)
	if err != nil {
		return nil, err
	}
	res.PagesCached, res.PagesStored = listedAfter.cached-listedBefore.cached, listedAfter.stored-listedBefore.stored
	res.PagesFetched = listedAfter.fetched - listedBefore.fetched
	if res.PagesCached+res.PagesStored < len(pages) {
		return nil, fmt.Errorf("paged list: %d pages, the server's /metrics count %d from its watch cache and %d from its storage",
			len(pages), res.PagesCached, res.PagesStored)
	}
	res.PagedCPU, res.PagedStorageCPU = split(before)

	// The unpaged list, where it fits in the servers' 60 s request timeout.
	lctx, cancel := context.WithTimeout(ctx, 70*time.Second)
	before, begin = t.cpu(), time.Now()
	body, err := t.listRaw(lctx, scaleNS)
	cancel()
	res.UnpagedWall = time.Since(begin)
	res.UnpagedCPU, _ = split(before)
	if err != nil {
		res.UnpagedErr = err.Error()
	} else {
		res.UnpagedBytes = len(body)
	}
	body = nil
	if r.proc.Exited() {
		return killed(r, "unpaged list", fmt.Errorf("unpaged list: the server exited: %s", res.UnpagedErr))
	}

	if scaleOpts.lists > 0 {
		res.Lists = parallelLists(ctx, t, scaleOpts.lists, time.Minute, res.UnpagedBytes)
		if r.proc.Exited() {
			return killed(r, "parallel unpaged lists", fmt.Errorf("the server exited during the parallel unpaged lists"))
		}
	}

	// The watch fan-out, gets and updates beside it.
	var wg sync.WaitGroup
	var fan, gets, upds *phaseResult
	var fanErr error
	c := config{Workers: 4, Watchers: scaleOpts.watchers}
	wg.Go(func() {
		fan, fanErr = watchFanOut(ctx, t, []*target{t}, []*target{t}, c, fanNamespace(s.name, n), 200, 20, 90*time.Second, false)
	})
	time.Sleep(2 * time.Second) // the watchers open
	wg.Go(func() {
		gets = runPhase(ctx, "get", 4, 2000, 60*time.Second, func(ctx context.Context, w, k int) error {
			_, err := t.get(ctx, scaleNS, fmt.Sprintf("f-%d", rand.IntN(n)))
			return err
		})
	})
	wg.Go(func() { upds = scaleUpdates(ctx, t, n, 2, 400, 60*time.Second) })
	wg.Wait()
	if fanErr != nil {
		return nil, fanErr
	}
	res.FanP50, res.FanP99, res.FanMissing = fan.P50, fan.P99, fan.Errors
	res.GetP99, res.GetOK, res.GetErrs = gets.P99, gets.OK, gets.Errors
	res.UpdP99, res.UpdOK, res.UpdErrs = upds.P99, upds.OK, upds.Errors
	if m, err = readMemory(r.proc.Pid()); err == nil {
		res.HWM, res.After = m.HWM, m.RSS
	}
	if cg != nil {
		res.CgroupPeak = cg.Peak()
	}
	if s.storageBytes != nil {
		res.StorageBytes = s.storageBytes()
	}
	return res, nil
}

// fillScale starts s and fills its namespace to n objects: through the API
// up to -scale-direct-from, the rest written to its storage (direct.go), with
// the server running (etcd: embedded etcd lives in it) or after it stopped
// (kine's table); s is stopped when it returns.
func fillScale(ctx context.Context, o *options, s scaleSide, n int, res *scaleResult) error {
	from := n
	if scaleOpts.directFrom > 0 && n > scaleOpts.directFrom {
		if s.raw == nil {
			return fmt.Errorf("-scale-direct-from: %s has no direct fill", s.name)
		}
		from = scaleOpts.directFrom
	}
	r, stop, err := s.start(ctx, fmt.Sprintf("%s-%d-fill", s.name, n), nil)
	if err != nil {
		return err
	}
	err = waitAdmits(ctx, r.target, 0)
	var had int
	if err == nil {
		var list objectList
		var body []byte
		if body, err = r.req(r.rc.Get, scaleNS).Param("limit", "1").Do(ctx).Raw(); err == nil {
			if err = runtimeDecode(body, &list); err == nil && list.RemainingItemCount != nil {
				had = int(*list.RemainingItemCount) + len(list.Items)
			} else if err == nil {
				had = len(list.Items)
			}
		}
	}
	var tmpls []template
	if err == nil {
		begin := time.Now()
		err = ensureObjects(ctx, r.target, scaleNS, from, o.prepareWorkers)
		if err == nil && n > from {
			tmpls, err = directTemplates(ctx, r.target, scaleNS, from, n)
		}
		res.Fill, res.Added = time.Since(begin), n-had
	}
	if err == nil {
		var body []byte
		if body, err = r.req(r.rc.Get, scaleNS).Name("f-0").Do(ctx).Raw(); err == nil {
			res.ObjectBytes = len(body)
		}
	}
	direct := func() error {
		if len(tmpls) == 0 {
			return nil
		}
		st, err := s.raw(ctx)
		if err != nil {
			return err
		}
		defer st.close()
		begin := time.Now()
		res.Direct, err = directFill(ctx, st, s.rawPrefixes, scaleNS, tmpls, from, n, 4)
		res.DirectFill = time.Since(begin)
		log.Printf("%s: %d objects written to storage in %v", s.name, res.Direct, res.DirectFill.Round(time.Millisecond))
		return err
	}
	if err == nil && !s.rawStopped {
		err = direct()
	}
	stop()
	if err == nil && s.rawStopped {
		err = direct()
	}
	if err != nil {
		return fmt.Errorf("filling: %w", err)
	}
	return nil
}

// scaleUpdates: count updates of the filled namespace from workers workers,
// each of a random object read just before (untimed) and written back with a
// changed spec and the resourceVersion read; only the update is timed.
func scaleUpdates(ctx context.Context, t *target, n, workers, count int, limit time.Duration) *phaseResult {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	r := &phaseResult{Op: "update"}
	var mu sync.Mutex
	begin := time.Now()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for k := w; k < count && ctx.Err() == nil; k += workers {
				// Each worker writes its own objects (i mod workers = w): no conflicts.
				i := w + workers*rand.IntN(max(n/workers, 1))
				obj, err := t.get(ctx, scaleNS, fmt.Sprintf("f-%d", i))
				if err == nil {
					obj.Spec = t.k.Spec(i, k+1)
					at := time.Now()
					_, err = t.update(ctx, obj)
					d := time.Since(at)
					mu.Lock()
					if err == nil {
						r.Lat = append(r.Lat, d)
					}
					mu.Unlock()
				}
				if err != nil && ctx.Err() == nil {
					mu.Lock()
					if r.Errors++; r.Errors <= 3 {
						log.Printf("update: %v", err)
					}
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	r.Elapsed, r.OK = time.Since(begin), len(r.Lat)
	r.finish()
	return r
}

// informerTimeout bounds an informer's initial sync: minutes at 10^6 objects.
const informerTimeout = 15 * time.Minute

// informerSync runs a shared informer of the namespace with client-go's
// defaults until it has synced, and returns the objects it holds.
func informerSync(ctx context.Context, t *target) (int, error) {
	rc, closeRC, err := t.newClient()
	if err != nil {
		return 0, err
	}
	defer closeRC()
	ctx, cancel := context.WithTimeout(ctx, informerTimeout)
	defer cancel()
	lw := cache.NewListWatchFromClient(rc, t.k.Resource, scaleNS, fields.Everything())
	inf := cache.NewSharedIndexInformer(lw, &object{}, 0, cache.Indexers{})
	go inf.RunWithContext(ctx)
	// Polled every 5 ms (cache.WaitForCacheSync polls every 100 ms).
	for !inf.HasSynced() {
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("not synced after %v", informerTimeout)
		case <-time.After(5 * time.Millisecond):
		}
	}
	return len(inf.GetStore().ListKeys()), nil
}

func briefScale(r *scaleResult) string {
	if r.Killed != "" {
		return r.Killed
	}
	fill := fmt.Sprintf("+%d in %v", r.Added-r.Direct, r.Fill.Round(time.Second))
	if r.Direct > 0 {
		fill += fmt.Sprintf(" (API) + %d to storage in %v", r.Direct, r.DirectFill.Round(time.Second))
	}
	s := fmt.Sprintf("fill %s, %d B/object, ready %v, RSS %s, synced RSS %s, paged list %v (CPU %v + storage %v), unpaged %v",
		fill, r.ObjectBytes, r.Startup.Round(time.Millisecond), mib(r.RSS), mib(r.RSSSynced),
		r.PagedWall.Round(time.Millisecond), r.PagedCPU, r.PagedStorageCPU, r.UnpagedWall.Round(time.Millisecond))
	if r.UnpagedErr != "" {
		s += " (" + r.UnpagedErr + ")"
	}
	if l := r.Lists; l.Clients > 0 {
		s += fmt.Sprintf(", %d parallel lists: %d served, %d turned away, %d failed", l.Clients, l.Served, l.TurnedAway, l.Failed)
	}
	return s + fmt.Sprintf(", informer %v (%d), fan-out p99 %v (%d missing), get p99 %v, update p99 %v, peak RSS %s, cgroup peak %s",
		r.InformerWall.Round(time.Millisecond), r.InformerItems, r.FanP99.Round(time.Millisecond), r.FanMissing,
		r.GetP99.Round(100*time.Microsecond), r.UpdP99.Round(100*time.Microsecond), mib(r.HWM), mib(r.CgroupPeak))
}

// writeScale writes scale.md and scale.json into -out (after each side, so
// that an interrupted run keeps what it measured).
func writeScale(o *options, results []*scaleResult) error {
	if o.out == "" {
		return nil
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(o.out, "scale.md"), []byte(reportScale(results)), 0o644); err != nil {
		return err
	}
	data, err := json.MarshalIndent(results, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(o.out, "scale.json"), data, 0o644)
}

// reportScale is the summary: a table per count, sides as columns, and the
// mermaid charts of start-up and RSS against the count.
func reportScale(results []*scaleResult) string {
	var sb strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&sb, format, a...) }
	var counts []int
	var sides []string
	for _, r := range results {
		if !slices.Contains(counts, r.Count) {
			counts = append(counts, r.Count)
		}
		if !slices.Contains(sides, r.Side) {
			sides = append(sides, r.Side)
		}
	}
	get := func(n int, side string) *scaleResult {
		for _, r := range results {
			if r.Count == n && r.Side == side {
				return r
			}
		}
		return nil
	}
	p("Scale envelope: examples/wardle's Flunder (~%d B of JSON each) on %s, %d watchers, paged lists of %d; %s, %s.\n\n",
		scaleOpts.bytes, strings.Join(sides, ", "), scaleOpts.watchers, scaleOpts.page, machine(), time.Now().UTC().Format("2006-01-02T15:04Z"))
	sec := func(d time.Duration) string { return ms(d.Seconds()) }
	for _, n := range counts {
		p("**%d objects**\n\n| measure |", n)
		for _, s := range sides {
			p(" %s |", s)
		}
		p("\n|---|%s\n", strings.Repeat("---|", len(sides)))
		row := func(what string, f func(r *scaleResult) string) {
			p("| %s |", what)
			for _, s := range sides {
				if r := get(n, s); r != nil && r.Killed != "" && (f(r) == "" || f(r) == f(&scaleResult{})) {
					p(" — |") // not reached
				} else if r != nil {
					p(" %s |", f(r))
				} else {
					p(" |")
				}
			}
			p("\n")
		}
		row("load average (1 min) before", func(r *scaleResult) string { return r.Load })
		row("object size (JSON of a get)", func(r *scaleResult) string { return fmt.Sprintf("%d B", r.ObjectBytes) })
		row("fill (objects added, 32 workers)", func(r *scaleResult) string {
			api := r.Added - r.Direct
			s := fmt.Sprintf("%s for %d (%.0f/s)", sec(r.Fill), api, float64(api)/max(r.Fill.Seconds(), 1e-9))
			if r.Direct > 0 {
				s += fmt.Sprintf(" (API) + %d written to storage in %s", r.Direct, sec(r.DirectFill))
			}
			return s
		})
		row("restart to /readyz", func(r *scaleResult) string { return sec(r.Startup) })
		row("restart to the first create served", func(r *scaleResult) string { return sec(r.Serving) })
		row("RSS at /readyz", func(r *scaleResult) string { return mib(r.RSS) })
		row("restart to an informer synced (the watch cache filled)", func(r *scaleResult) string {
			if r.InformerItems == 0 {
				return ""
			}
			return sec(r.Serving + r.InformerWall)
		})
		row("RSS then", func(r *scaleResult) string { return mib(r.RSSSynced) })
		row("peak RSS until then: the cache's fill and a watch-list of everything (VmHWM)", func(r *scaleResult) string { return mib(r.HWMSynced) })
		row(fmt.Sprintf("paged list of all (limit %d)", scaleOpts.page), func(r *scaleResult) string { return sec(r.PagedWall) })
		row("… server CPU (+ storage's)", func(r *scaleResult) string { return sec(r.PagedCPU) + " (+" + sec(r.PagedStorageCPU) + ")" })
		row("… its first page / its last page", func(r *scaleResult) string { return sec(r.FirstPage) + " / " + sec(r.LastPage) })
		row("… pages served by the watch cache / by the storage", func(r *scaleResult) string {
			return fmt.Sprintf("%d / %d", r.PagesCached, r.PagesStored)
		})
		row("… objects the watch cache fetched for its pages", func(r *scaleResult) string { return strconv.Itoa(r.PagesFetched) })
		row("unpaged list of all", func(r *scaleResult) string {
			if r.UnpagedErr != "" {
				return "failed after " + sec(r.UnpagedWall)
			}
			return fmt.Sprintf("%s, %.0f MB, CPU %s", sec(r.UnpagedWall), float64(r.UnpagedBytes)/1e6, sec(r.UnpagedCPU))
		})
		if slices.ContainsFunc(results, func(r *scaleResult) bool { return r.Lists.Clients > 0 }) {
			row(fmt.Sprintf("%d clients listing all unpaged for 1 min: served / turned away (429) / failed", scaleOpts.lists), func(r *scaleResult) string {
				l := r.Lists
				if l.Clients == 0 {
					return ""
				}
				s := fmt.Sprintf("%d / %d / %d", l.Served, l.TurnedAway, l.Failed)
				if l.Served > 0 {
					s += ", longest " + sec(l.Longest)
				}
				if l.FirstError != "" {
					s += " (" + l.FirstError + ")"
				}
				return s
			})
		}
		row("memory limit (cgroup) / the cgroup's peak", func(r *scaleResult) string {
			if r.MemoryLimit == 0 {
				return "none"
			}
			return mib(r.MemoryLimit) + " / " + mib(r.CgroupPeak)
		})
		row("killed for memory", func(r *scaleResult) string { return cmp.Or(r.Killed, "no") })
		row("informer initial sync", func(r *scaleResult) string {
			if r.InformerItems == 0 {
				return ""
			}
			how := "list+watch"
			if r.WatchList {
				how = "watch-list gate on"
			}
			return fmt.Sprintf("%s (%s), CPU %s", sec(r.InformerWall), how, sec(r.InformerCPU))
		})
		row(fmt.Sprintf("watch fan-out to %d, 20 creates/s: delivery p50 / p99", scaleOpts.watchers), func(r *scaleResult) string {
			s := sec(r.FanP50) + " / " + sec(r.FanP99)
			if r.FanMissing > 0 {
				s += fmt.Sprintf(", %d missing", r.FanMissing)
			}
			return s
		})
		row("get p99 under it (4 workers)", func(r *scaleResult) string { return sec(r.GetP99) + errNote(r.GetErrs) })
		row("update p99 under it (2 workers)", func(r *scaleResult) string { return sec(r.UpdP99) + errNote(r.UpdErrs) })
		row("peak RSS (VmHWM)", func(r *scaleResult) string { return mib(r.HWM) })
		row("etcd database file (member/snap/db)", func(r *scaleResult) string {
			if r.StorageBytes == 0 {
				return ""
			}
			return mib(r.StorageBytes)
		})
		p("\n")
	}
	var labels []string
	for _, n := range counts {
		labels = append(labels, strconv.Itoa(n))
	}
	chart := func(title, axis string, f func(r *scaleResult) float64) {
		p("```mermaid\nxychart-beta\n    title \"%s\"\n    x-axis \"objects\" [%s]\n    y-axis \"%s\"\n", title, strings.Join(labels, ", "), axis)
		for _, s := range sides {
			var ys []string
			for _, n := range counts {
				v := 0.0 // none, or killed before it was measured
				if r := get(n, s); r != nil && r.Killed == "" {
					v = f(r)
				}
				ys = append(ys, fmt.Sprintf("%.1f", v))
			}
			p("    line [%s]\n", strings.Join(ys, ", "))
		}
		p("```\n\n")
	}
	p("Lines in the order %s.\n\n", strings.Join(sides, ", "))
	chart("Restart to an informer synced", "seconds", func(r *scaleResult) float64 { return (r.Serving + r.InformerWall).Seconds() })
	chart("RSS with the watch cache filled (after the sync)", "MiB", func(r *scaleResult) float64 { return float64(r.RSSSynced) / (1 << 20) })
	return sb.String()
}

// listCounts is what a server's /metrics says of the lists of one kind it
// has served so far.
type listCounts struct {
	cached  int // lists from the watch cache (apiserver_storage_list_total)
	fetched int // objects the watch cache took out to serve them (…_fetched_objects_total)
	stored  int // lists from the storage
}

// listsServed reads t's server's list counts of t's kind. A paged list's
// later pages come from the storage when the watch cache holds no snapshot
// at their resourceVersion.
func listsServed(ctx context.Context, t *target) (listCounts, error) {
	var c listCounts
	p := t.procs[0]
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL+"/metrics", nil)
	if err != nil {
		return c, err
	}
	resp, err := p.HC.Do(req)
	if err != nil {
		return c, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return c, fmt.Errorf("%s /metrics: %s", p.Name, resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		name, labels, value, ok := metricSample(sc.Text())
		if !ok || labels["group"] != t.k.GV.Group || labels["resource"] != t.k.Resource {
			continue
		}
		switch store := labels["storage"]; {
		case name == "apiserver_storage_list_total" && store == "watchcache":
			c.cached += int(value)
		case name == "apiserver_storage_list_fetched_objects_total" && store == "watchcache":
			c.fetched += int(value)
		case name == "apiserver_storage_list_total" && store == "etcd":
			c.stored += int(value)
		}
	}
	return c, sc.Err()
}

// metricSample splits a line of the Prometheus text format, name{labels}
// value; ok is false for comments and lines it cannot read.
func metricSample(line string) (name string, labels map[string]string, value float64, ok bool) {
	open, end := strings.IndexByte(line, '{'), strings.LastIndexByte(line, '}')
	if strings.HasPrefix(line, "#") || open < 0 || end < open {
		return "", nil, 0, false
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(line[end+1:]), 64)
	if err != nil {
		return "", nil, 0, false
	}
	labels = map[string]string{}
	for _, kv := range strings.Split(line[open+1:end], ",") {
		if k, val, found := strings.Cut(kv, "="); found {
			labels[k] = strings.Trim(val, `"`)
		}
	}
	return line[:open], labels, v, true
}

// etcdDBSize is the size of the etcd database file under a local-mode data
// dir, 0 if there is none.
func etcdDBSize(dataDir string) int64 {
	var size int64
	_ = filepath.WalkDir(dataDir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "db" && filepath.Base(filepath.Dir(path)) == "snap" {
			if info, err := d.Info(); err == nil {
				size = info.Size()
			}
		}
		return nil
	})
	return size
}

func errNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %d errors", n)
}

// listsResult is what parallel unpaged lists of everything got.
type listsResult struct {
	Clients    int
	Served     int // 200 with the whole list
	TurnedAway int // 429 with Retry-After
	Failed     int
	FirstError string `json:",omitempty"`
	Wall       time.Duration
	Longest    time.Duration // of a list served
}

// parallelLists has clients clients list t's filled namespace unpaged, at
// once and again until window has passed, each retrying a 429 after its
// Retry-After, as a client that honours it does. A list is served when it
// reads a 200 of at least 99% of want bytes (the unpaged list's size; 0:
// unknown), its body discarded as it arrives.
func parallelLists(ctx context.Context, t *target, clients int, window time.Duration, want int) listsResult {
	res := listsResult{Clients: clients}
	var mu sync.Mutex
	record := func(f func()) {
		mu.Lock()
		defer mu.Unlock()
		f()
	}
	deadline := time.Now().Add(window)
	begin := time.Now()
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for time.Now().Before(deadline) && ctx.Err() == nil {
				started := time.Now()
				lctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
				n, err := listStreamed(lctx, t)
				cancel()
				took := time.Since(started)
				switch {
				case err == nil && n >= want*99/100:
					record(func() { res.Served++; res.Longest = max(res.Longest, took) })
				case apierrors.IsTooManyRequests(err):
					record(func() { res.TurnedAway++ })
					wait, ok := apierrors.SuggestsClientDelay(err)
					if !ok {
						record(func() { res.Failed++; res.FirstError = cmp.Or(res.FirstError, "429 without Retry-After") })
						return
					}
					time.Sleep(time.Duration(wait) * time.Second)
				default:
					if err == nil {
						err = fmt.Errorf("%d bytes, want %d", n, want)
					}
					record(func() { res.Failed++; res.FirstError = cmp.Or(res.FirstError, err.Error()) })
					time.Sleep(time.Second)
				}
			}
		})
	}
	wg.Wait()
	res.Wall = time.Since(begin)
	return res
}

// listStreamed lists t's filled namespace unpaged, without client-go's
// retries (a 429 comes back as an error), and counts the body's bytes.
func listStreamed(ctx context.Context, t *target) (int, error) {
	body, err := t.req(t.rc.Get, scaleNS).MaxRetries(0).Stream(ctx)
	if err != nil {
		return 0, err
	}
	defer body.Close()
	n, err := io.Copy(io.Discard, body)
	return int(n), err
}

// parseMemoryLimit reads a memory limit flag: a quantity, none (0), or
// deployment, the limit examples/wardle's generated Deployment sets for the
// server.
func parseMemoryLimit(v, root string) (int64, error) {
	switch v {
	case "none", "":
		return 0, nil
	case "deployment":
		q, err := cluster.DeploymentMemoryLimit(filepath.Join(root, "examples", "wardle", "config", "generated", "deployment.yaml"), "apiserver")
		return q.Value(), err
	}
	q, err := resource.ParseQuantity(v)
	return q.Value(), err
}

// inCgroup is bin run in cg, or bin where cg is nil: a wrapper written in dir
// that moves itself into cg and execs bin, so its process ID is the
// server's.
func inCgroup(cg *cluster.MemoryCgroup, bin, dir string) (string, error) {
	if cg == nil {
		return bin, nil
	}
	return cg.Wrap(bin, dir)
}
