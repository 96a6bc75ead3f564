package main

import (
	"context"
	"fmt"
	"log"
	"math/rand/v2"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"

	"github.com/apigen-dev/apigen/test/cluster"
)

// phaseResult is one operation's figures on one server in one round.
type phaseResult struct {
	Op      string
	OK      int // successful requests (watch: events delivered)
	Errors  int
	Elapsed time.Duration
	Lat     []time.Duration `json:"-"`
	P50     time.Duration
	P99     time.Duration
	CPU     time.Duration // the CPU time (user+sys) of the processes serving the path during the operation
	// CPUBy is CPU by process, when more than one serves the path
	// (kube-apiserver and the aggregated server behind it).
	CPUBy map[string]time.Duration `json:",omitempty"`
	Load  string                   // 1-minute load average before it
	Paced bool                     // the load was a fixed rate: throughput does not compare
	Note  string                   `json:",omitempty"`
	// Cross and Same split the deliveries of a watch through kube-apiserver
	// by whether the replica that served the watch served the create too;
	// Unattributed are those whose replicas the audit logs do not name.
	Cross        *latencySplit `json:",omitempty"`
	Same         *latencySplit `json:",omitempty"`
	Unattributed int           `json:",omitempty"`
}

// CPUPerOp is the server's CPU time per successful request (watch: per
// delivered event, the creates' CPU included).
func (r *phaseResult) CPUPerOp() time.Duration {
	if r.OK == 0 {
		return 0
	}
	return r.CPU / time.Duration(r.OK)
}

func (r *phaseResult) Throughput() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.OK) / r.Elapsed.Seconds()
}

func (r *phaseResult) finish() {
	sort.Slice(r.Lat, func(i, j int) bool { return r.Lat[i] < r.Lat[j] })
	r.P50, r.P99 = percentile(r.Lat, 0.50), percentile(r.Lat, 0.99)
}

// percentile is the nearest-rank percentile of sorted durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p+0.999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// runPhase runs fn from workers goroutines until count calls were made (count
// <= 0: no bound) or limit passed, timing each call. fn(ctx, w, k) is worker
// w's k-th call. Calls cut off by the time limit are not counted.
func runPhase(ctx context.Context, op string, workers, count int, limit time.Duration, fn func(ctx context.Context, w, k int) error) *phaseResult {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var next atomic.Int64
	lats := make([][]time.Duration, workers)
	errs := make([]int, workers)
	var logged atomic.Int32
	start := time.Now()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for k := 0; ; k++ {
				if count > 0 && next.Add(1) > int64(count) {
					return
				}
				if ctx.Err() != nil {
					return
				}
				t := time.Now()
				err := fn(ctx, w, k)
				d := time.Since(t)
				if err != nil {
					if ctx.Err() != nil {
						return
					}
					errs[w]++
					if logged.Add(1) <= 3 {
						log.Printf("%s: %v", op, err)
					}
					continue
				}
				lats[w] = append(lats[w], d)
			}
		})
	}
	wg.Wait()
	r := &phaseResult{Op: op, Elapsed: time.Since(start)}
	for w := range workers {
		r.Lat = append(r.Lat, lats[w]...)
		r.Errors += errs[w]
	}
	r.OK = len(r.Lat)
	if count > 0 && r.OK+r.Errors < count {
		r.Note = fmt.Sprintf("time limit %v reached after %d of %d", limit, r.OK+r.Errors, count)
	}
	r.finish()
	return r
}

// paced calls fn count times (count <= 0: until limit), one call every 1/rate
// s on schedule, each in its own goroutine, with at most workers in flight (a
// server that falls that far behind delays the schedule).
func paced(ctx context.Context, op string, workers, count int, rate float64, limit time.Duration, fn func(ctx context.Context, w, k int) error) *phaseResult {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	interval := time.Duration(float64(time.Second) / rate)
	slots := make(chan int, workers)
	for w := range workers {
		slots <- w
	}
	var mu sync.Mutex
	r := &phaseResult{Op: op}
	start := time.Now()
	var wg sync.WaitGroup
	for k := 0; count <= 0 || k < count; k++ {
		if d := time.Until(start.Add(time.Duration(k) * interval)); d > 0 {
			select {
			case <-time.After(d):
			case <-ctx.Done():
			}
		}
		var w int
		select {
		case w = <-slots:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Go(func() {
			defer func() { slots <- w }()
			t := time.Now()
			err := fn(ctx, w, k)
			d := time.Since(t)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				r.Lat = append(r.Lat, d)
			case ctx.Err() == nil:
				if r.Errors++; r.Errors <= 3 {
					log.Printf("%s: %v", op, err)
				}
			}
		})
	}
	wg.Wait()
	r.Elapsed = time.Since(start)
	r.OK = len(r.Lat)
	r.finish()
	return r
}

// target is one path to a kind as the workload sees it: a server reached
// directly, or a kind served by kube-apiserver (a CRD, or an APIService it
// proxies to an aggregated server).
type target struct {
	name string // the side of the comparison
	k    *kind
	rc   *rest.RESTClient
	// newClient is another client of the same path on its own connection, as
	// a separate program would have (each watcher); close releases it.
	newClient func() (rc *rest.RESTClient, close func(), err error)
	// procs serve this path (kube-apiserver first on a proxied one): their
	// CPU time is the operation's, and profiles are taken of each.
	procs []*proc
	// prefix is nsPrefix.
	prefix string
	// replicas, when set, are the servers of a side of several on one
	// database (-replicas), each reached directly; the workload spreads over
	// them (on), and rc and newClient are the first one's.
	replicas []*target
	// served, when set, tells which replica served each request that named
	// itself with an Audit-ID (the replicas behind kube-apiserver); the paced
	// watch then splits its deliveries by replica.
	served func() (map[string]int, error)
}

// all is the servers of t: its replicas, or t itself.
func (t *target) all() []*target {
	if len(t.replicas) > 0 {
		return t.replicas
	}
	return []*target{t}
}

// on is the server worker (or watcher) w uses: replica w mod the replicas.
func (t *target) on(w int) *target {
	all := t.all()
	return all[w%len(all)]
}

// nsPrefix distinguishes the round namespaces of sides that share a server;
// empty in the sample-apiserver comparison, where each side is its own.
func (t *target) nsPrefix() string { return t.prefix }

// proc is a server process and a client that may read its /debug/pprof.
type proc struct {
	Name string
	Pid  int
	URL  string
	HC   *http.Client
	// Tree: its CPU time is its own and its live descendants' (postgres
	// serves each connection in a child process).
	Tree bool
}

func (t *target) req(verb func() *rest.Request, ns string) *rest.Request {
	return verb().Namespace(ns).Resource(t.k.Resource)
}

func (t *target) create(ctx context.Context, o *object) (*object, error) {
	out := &object{}
	err := t.req(t.rc.Post, o.Namespace).Body(o).Do(ctx).Into(out)
	return out, err
}

func (t *target) get(ctx context.Context, ns, name string) (*object, error) {
	out := &object{}
	err := t.req(t.rc.Get, ns).Name(name).Do(ctx).Into(out)
	return out, err
}

func (t *target) update(ctx context.Context, o *object) (*object, error) {
	out := &object{}
	err := t.req(t.rc.Put, o.Namespace).Name(o.Name).Body(o).Do(ctx).Into(out)
	return out, err
}

// patch sends a JSON merge patch.
func (t *target) patch(ctx context.Context, ns, name string, body []byte) (*object, error) {
	out := &object{}
	err := t.req(func() *rest.Request { return t.rc.Patch(types.MergePatchType) }, ns).Name(name).Body(body).Do(ctx).Into(out)
	return out, err
}

// apply is server-side apply of the whole object (apiVersion, kind, name and
// spec) by the field manager serverload, forcing conflicts.
func (t *target) apply(ctx context.Context, o *object) (*object, error) {
	body := mustJSON(map[string]any{
		"apiVersion": t.k.GV.String(), "kind": t.k.Kind,
		"metadata": map[string]any{"name": o.Name, "namespace": o.Namespace},
		"spec":     o.Spec,
	})
	out := &object{}
	err := t.req(func() *rest.Request { return t.rc.Patch(types.ApplyPatchType) }, o.Namespace).Name(o.Name).
		Param("fieldManager", "serverload").Param("force", "true").Body(body).Do(ctx).Into(out)
	return out, err
}

// listRaw is a full list of a namespace, read to the last byte and not
// decoded: the server's work, not the client's.
func (t *target) listRaw(ctx context.Context, ns string) ([]byte, error) {
	return t.req(t.rc.Get, ns).Do(ctx).Raw()
}

// listPaged is a full list of a namespace in pages of limit objects, following
// continue tokens as client-go's pager does; it returns the bytes read and the
// objects counted.
func (t *target) listPaged(ctx context.Context, ns string, limit int) (bytes, items int, err error) {
	return t.listPages(ctx, ns, limit, nil)
}

// listPages is listPaged that hands each page's time to timed, if set.
func (t *target) listPages(ctx context.Context, ns string, limit int, timed func(time.Duration)) (bytes, items int, err error) {
	cont := ""
	for {
		begin := time.Now()
		var page objectList
		req := t.req(t.rc.Get, ns).Param("limit", fmt.Sprint(limit))
		if cont != "" {
			req = req.Param("continue", cont)
		}
		body, err := req.Do(ctx).Raw()
		if err != nil {
			return bytes, items, err
		}
		if err := runtimeDecode(body, &page); err != nil {
			return bytes, items, err
		}
		if timed != nil {
			timed(time.Since(begin))
		}
		bytes, items = bytes+len(body), items+len(page.Items)
		if cont = page.Continue; cont == "" {
			return bytes, items, nil
		}
	}
}

func (t *target) list(ctx context.Context, ns string) (*objectList, error) {
	out := &objectList{}
	err := t.req(t.rc.Get, ns).Do(ctx).Into(out)
	return out, err
}

// cpu is the CPU time each process of the path has used so far.
func (t *target) cpu() map[string]time.Duration {
	m := map[string]time.Duration{}
	for _, p := range t.procs {
		if p.Tree {
			m[p.Name] = treeCPU(p.Pid)
		} else {
			m[p.Name] = processCPU(p.Pid)
		}
	}
	return m
}

// config is the workload's size.
type config struct {
	// WritesOnly runs only create, get, update, patch and apply (the -dv
	// comparison: what validation costs), no lists and no watches.
	WritesOnly bool
	Workers    int
	Creates    int
	Gets       int
	Updates    int
	Patches    int // JSON merge patches of the spec
	Applies    int // server-side applies of the whole spec
	ListSmall  int // objects in the small list's namespace
	ListLarge  int // objects in the large list's namespace
	ListSmallN int // lists of the small namespace
	ListLargeN int // lists of the large namespace
	ListPage   int // with it, the large namespace is also listed in pages of this many objects
	// ListLargeWorkers list the large namespace concurrently (0: Workers).
	ListLargeWorkers int
	Watchers         int
	WatchEvents      int // objects created while the watchers watch, as fast as the server takes them
	// WatchPacedEvents objects created at WatchRate per second while the
	// watchers watch (WatchRate 0: no paced watch).
	WatchPacedEvents int
	WatchRate        float64
	PhaseTimeout     time.Duration
	// The CRD comparison only.
	DescriptionBytes int // spec.description of each gizmo
	MemObjects       int // objects created through each store for its memory growth
}

func listNamespace(n int) string { return fmt.Sprintf("list-%d", n) }

// session is one server's state during a round: the objects its creates
// made, which get, update, patch and apply then use.
type session struct {
	t       *target
	c       config
	round   int
	created [][]*object // per worker: what it created, kept current by update
	names   []string
}

func newSession(t *target, c config, round int) *session {
	return &session{t: t, c: c, round: round, created: make([][]*object, c.Workers)}
}

// roundNamespaces are the namespaces the operations of side in round use:
// crud, watch and paced watch. Two sides served by the same process (the
// aggregated server reached through kube-apiserver and directly) need their
// own.
func roundNamespaces(side string, round int) []string {
	var ns []string
	for _, what := range []string{"crud", "watch", "watchpaced"} {
		n := fmt.Sprintf("%s-r%d", what, round)
		if side != "" {
			n = side + "-" + n
		}
		ns = append(ns, n)
	}
	return ns
}

func (s *session) namespace(i int) string { return roundNamespaces(s.t.nsPrefix(), s.round)[i] }
func (s *session) crud() string           { return s.namespace(0) }

// operation is one measured operation; the operations run in this order, and
// each one is run on every server before the next one starts.
type operation struct {
	Name string
	run  func(s *session, ctx context.Context) (*phaseResult, error)
	// Paced: the load is a fixed rate, so only the latency compares.
	Paced bool
}

func operations(c config) []operation {
	ops := []operation{
		{Name: "create", run: (*session).create},
		{Name: "get", run: (*session).get},
		{Name: "update", run: (*session).update},
	}
	// 0: none; below 0 (profiles): no count bound.
	if c.Patches != 0 {
		ops = append(ops, operation{Name: "patch", run: (*session).patch})
	}
	if c.Applies != 0 {
		ops = append(ops, operation{Name: "apply", run: (*session).apply})
	}
	if c.WritesOnly {
		return ops
	}
	for _, l := range []struct{ objects, n, workers int }{{c.ListSmall, c.ListSmallN, c.Workers}, {c.ListLarge, c.ListLargeN, c.largeListWorkers()}} {
		ops = append(ops, operation{Name: fmt.Sprintf("list %d", l.objects), run: func(s *session, ctx context.Context) (*phaseResult, error) {
			return s.list(ctx, l.objects, l.n, l.workers)
		}})
	}
	if c.ListPage > 0 {
		ops = append(ops, operation{Name: fmt.Sprintf("list %d, pages of %d", c.ListLarge, c.ListPage), run: func(s *session, ctx context.Context) (*phaseResult, error) {
			return s.listPaged(ctx, c.ListLarge, c.ListLargeN, c.largeListWorkers())
		}})
	}
	ops = append(ops, operation{Name: fmt.Sprintf("watch, %d watchers", c.Watchers), run: (*session).watch})
	if c.WatchRate > 0 {
		ops = append(ops, operation{
			Name: fmt.Sprintf("watch, %d watchers, %g creates/s", c.Watchers, c.WatchRate), run: (*session).watchPaced,
			Paced: true,
		})
	}
	return ops
}

// unbounded is an optional operation's count for a profile: none stays none
// (0), any other is without a count bound (-1).
func unbounded(n int) int {
	if n == 0 {
		return 0
	}
	return -1
}

// measure runs op on s, with the server's CPU time around it and hook (if not
// nil) called before it and what hook returns after it.
func (op operation) measure(ctx context.Context, s *session, hook func(op string) func()) (*phaseResult, error) {
	if hook != nil {
		defer hook(op.Name)()
	}
	before := s.t.cpu()
	r, err := op.run(s, ctx)
	if r != nil {
		r.Op, r.Paced = op.Name, op.Paced
		r.CPU = 0
		for name, after := range s.t.cpu() {
			r.CPU += after - before[name]
			if len(s.t.procs) > 1 {
				if r.CPUBy == nil {
					r.CPUBy = map[string]time.Duration{}
				}
				r.CPUBy[name] = after - before[name]
			}
		}
	}
	return r, err
}

// create: distinct new objects.
func (s *session) create(ctx context.Context) (*phaseResult, error) {
	var n atomic.Int64
	r := runPhase(ctx, "create", s.c.Workers, s.c.Creates, s.c.PhaseTimeout, func(ctx context.Context, w, k int) error {
		i := int(n.Add(1))
		out, err := s.t.on(w).create(ctx, s.t.k.newObject(s.crud(), fmt.Sprintf("c-%d", i), i))
		if err == nil {
			s.created[w] = append(s.created[w], out)
		}
		return err
	})
	for _, objs := range s.created {
		for _, o := range objs {
			s.names = append(s.names, o.Name)
		}
	}
	if len(s.names) == 0 {
		return r, fmt.Errorf("create: nothing created (%d errors)", r.Errors)
	}
	return r, nil
}

// get: a random object of those created.
func (s *session) get(ctx context.Context) (*phaseResult, error) {
	return runPhase(ctx, "get", s.c.Workers, s.c.Gets, s.c.PhaseTimeout, func(ctx context.Context, w, k int) error {
		_, err := s.t.on(w).get(ctx, s.crud(), s.names[rand.IntN(len(s.names))])
		return err
	}), nil
}

// update: each worker replaces the objects it created in turn, with the
// resourceVersion it last saw (sample-apiserver refuses unconditional updates)
// and a changed spec. No two workers touch the same object: no conflicts.
func (s *session) update(ctx context.Context) (*phaseResult, error) {
	return s.eachOwn(ctx, "update", s.c.Updates, func(ctx context.Context, t *target, o *object, i, rev int) (*object, error) {
		o.Spec = s.t.k.Spec(i, rev)
		return t.update(ctx, o)
	}), nil
}

// patch: as update, a JSON merge patch of the spec without a resourceVersion.
func (s *session) patch(ctx context.Context) (*phaseResult, error) {
	return s.eachOwn(ctx, "patch", s.c.Patches, func(ctx context.Context, t *target, o *object, i, rev int) (*object, error) {
		return t.patch(ctx, o.Namespace, o.Name, s.t.k.Patch(rev))
	}), nil
}

// apply: as update, a server-side apply of the whole spec.
func (s *session) apply(ctx context.Context) (*phaseResult, error) {
	return s.eachOwn(ctx, "apply", s.c.Applies, func(ctx context.Context, t *target, o *object, i, rev int) (*object, error) {
		o.Spec = s.t.k.Spec(i, rev)
		return t.apply(ctx, o)
	}), nil
}

// eachOwn runs count writes from the workers, each writing the objects it
// created in turn (its k-th write is revision k+1 of its object k mod n) and
// keeping what the server returned. Worker w writes through the server it
// created them on (s.t.on(w)).
func (s *session) eachOwn(ctx context.Context, op string, count int, write func(ctx context.Context, t *target, o *object, i, rev int) (*object, error)) *phaseResult {
	return runPhase(ctx, op, s.c.Workers, count, s.c.PhaseTimeout, func(ctx context.Context, w, k int) error {
		own := s.created[w]
		if len(own) == 0 {
			return fmt.Errorf("worker %d created nothing to %s", w, op)
		}
		j := k % len(own)
		o := own[j].DeepCopyObject().(*object)
		i, _ := strconv.Atoi(o.Labels["serverload/index"])
		out, err := write(ctx, s.t.on(w), o, i, k+1)
		if err == nil {
			own[j] = out
		}
		return err
	})
}

// largeListWorkers is how many workers list the large namespace.
func (c config) largeListWorkers() int {
	if c.ListLargeWorkers > 0 {
		return c.ListLargeWorkers
	}
	return c.Workers
}

// list: n full lists of the namespace holding objects objects by workers
// workers, each read to the last byte; one response is then decoded and
// counted (untimed).
func (s *session) list(ctx context.Context, objects, n, workers int) (*phaseResult, error) {
	ns := listNamespace(objects)
	var last []byte
	r := runPhase(ctx, "list", workers, n, s.c.PhaseTimeout, func(ctx context.Context, w, k int) error {
		body, err := s.t.on(w).listRaw(ctx, ns)
		if err == nil && w == 0 {
			last = body
		}
		return err
	})
	if last != nil {
		var list objectList
		if err := runtimeDecode(last, &list); err != nil {
			return r, fmt.Errorf("list %s: decoding the response: %w", ns, err)
		}
		if len(list.Items) != objects {
			return r, fmt.Errorf("list %s: %d items, want %d", ns, len(list.Items), objects)
		}
		r.Note = joinNote(r.Note, fmt.Sprintf("%.0f kB of JSON per list", float64(len(last))/1e3))
	}
	return r, nil
}

// listPaged: n full lists of the namespace holding objects objects by
// workers workers, each in pages of ListPage objects (decoded, to follow the
// continue token).
func (s *session) listPaged(ctx context.Context, objects, n, workers int) (*phaseResult, error) {
	ns := listNamespace(objects)
	var bytes, items int
	r := runPhase(ctx, "list", workers, n, s.c.PhaseTimeout, func(ctx context.Context, w, k int) error {
		b, i, err := s.t.on(w).listPaged(ctx, ns, s.c.ListPage)
		if err == nil && w == 0 {
			bytes, items = b, i
		}
		return err
	})
	if bytes > 0 {
		if items != objects {
			return r, fmt.Errorf("paged list %s: %d items, want %d", ns, items, objects)
		}
		r.Note = joinNote(r.Note, fmt.Sprintf("%.0f kB of JSON per list", float64(bytes)/1e3))
	}
	return r, nil
}

func (s *session) watch(ctx context.Context) (*phaseResult, error) {
	all := s.t.all()
	return watchFanOut(ctx, s.t, all, all, s.c, s.namespace(1), s.c.WatchEvents, 0, s.c.PhaseTimeout, false)
}

// watchPaced: on a side of several replicas, the creates go through the
// first and the watchers are on the others, so that every delivery is of a
// write made through another server.
func (s *session) watchPaced(ctx context.Context) (*phaseResult, error) {
	writers, watchers := s.t.all(), s.t.all()
	if len(writers) > 1 {
		writers, watchers = writers[:1], watchers[1:]
	}
	r, err := watchFanOut(ctx, s.t, writers, watchers, s.c, s.namespace(2), s.c.WatchPacedEvents, s.c.WatchRate, s.c.PhaseTimeout, s.t.served != nil)
	if r != nil && len(s.t.all()) > 1 {
		r.Note = joinNote(r.Note, "creates through one replica, watchers on the others")
	}
	return r, err
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

func runtimeDecode(data []byte, into *objectList) error {
	obj, _, err := codecs.UniversalDeserializer().Decode(data, nil, into)
	if err != nil {
		return err
	}
	if obj != into {
		return fmt.Errorf("decoded a %T", obj)
	}
	return nil
}

// watchFanOut opens c.Watchers watches of the empty namespace ns, each on its
// own connection (as separate clients would; watcher i on watchers[i mod n]
// of t's servers), then creates events objects there (worker w through
// writers[w mod n]) (events <= 0: until limit): with rate 0, from c.Workers workers as fast
// as the server takes them (closed loop: the throughput of the fan-out); with
// rate > 0, one create every 1/rate s whatever the responses (open loop, at
// most c.Workers in flight: the latency of the fan-out at a load both servers
// keep up with). A delivery's latency is from the moment its create request
// was sent to the moment a watcher decoded the ADDED event: from the send
// rather than from the create's response because the event may reach a
// watcher before the response reaches the creator. Throughput is deliveries
// per second from the first create to the last delivery. With byReplica, the
// deliveries are also split by replica (t.served; phaseResult.Cross, Same).
func watchFanOut(ctx context.Context, t *target, writers, watchers []*target, c config, ns string, events int, rate float64, limit time.Duration, byReplica bool) (*phaseResult, error) {
	op := fmt.Sprintf("watch, %d watchers", c.Watchers)
	list, err := t.list(ctx, ns)
	if err != nil {
		return nil, fmt.Errorf("%s: listing %s: %w", op, ns, err)
	}
	if len(list.Items) != 0 {
		return nil, fmt.Errorf("%s: namespace %s is not empty", op, ns)
	}
	wctx, stop := context.WithCancel(ctx)
	defer stop()

	type delivery struct {
		name string
		at   time.Time
	}
	type watcher struct {
		w        watch.Interface
		close    func()
		got      []delivery
		n        atomic.Int64
		err      error
		finished chan struct{}
	}
	ws := make([]*watcher, c.Watchers)
	for i := range ws {
		rc, closeRC, err := watchers[i%len(watchers)].newClient()
		if err != nil {
			return nil, err
		}
		wi, err := rc.Get().Namespace(ns).Resource(t.k.Resource).
			VersionedParams(&metav1.ListOptions{Watch: true, ResourceVersion: list.ResourceVersion}, parameterCodec).
			Watch(cluster.WithAuditID(wctx, watchAuditID(ns, i)))
		if err != nil {
			closeRC()
			return nil, fmt.Errorf("%s: starting watcher %d: %w", op, i, err)
		}
		ws[i] = &watcher{w: wi, close: closeRC, finished: make(chan struct{})}
	}
	defer func() {
		for _, w := range ws {
			if w != nil {
				w.w.Stop()
				w.close()
			}
		}
	}()
	for _, w := range ws {
		go func() {
			defer close(w.finished)
			for ev := range w.w.ResultChan() {
				at := time.Now()
				switch ev.Type {
				case watch.Added:
					f, ok := ev.Object.(*object)
					if !ok {
						w.err = fmt.Errorf("ADDED event with a %T", ev.Object)
						return
					}
					w.got = append(w.got, delivery{f.Name, at})
					w.n.Add(1)
				case watch.Error:
					if wctx.Err() == nil { // not the end of the watch that stop() asked for
						w.err = apierrors.FromObject(ev.Object)
					}
					return
				}
			}
		}()
	}

	var sent sync.Map // name -> send time
	var n atomic.Int64
	create := func(ctx context.Context, w, k int) error {
		i := int(n.Add(1))
		f := t.k.newObject(ns, fmt.Sprintf("w-%d", i), i)
		sent.Store(f.Name, time.Now())
		_, err := writers[w%len(writers)].create(cluster.WithAuditID(ctx, createAuditID(ns, f.Name)), f)
		if err != nil {
			sent.Delete(f.Name)
		}
		return err
	}
	var cr *phaseResult
	if rate > 0 {
		cr = paced(ctx, "watch create", c.Workers, events, rate, limit, create)
	} else {
		cr = runPhase(ctx, "watch create", c.Workers, events, limit, create)
	}
	want := int64(cr.OK)
	deadline := time.Now().Add(limit)
	for {
		done := true
		for _, w := range ws {
			if w.n.Load() < want {
				done = false
			}
		}
		if done || time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	stop()
	for _, w := range ws {
		w.w.Stop()
		<-w.finished
	}

	r := &phaseResult{Op: op, Errors: cr.Errors}
	var first time.Time
	var last time.Time
	sent.Range(func(_, v any) bool {
		if t := v.(time.Time); first.IsZero() || t.Before(first) {
			first = t
		}
		return true
	})
	missing := 0
	var ds []delivered
	for i, w := range ws {
		if w.err != nil && ctx.Err() == nil {
			return nil, fmt.Errorf("%s: a watcher failed: %w", op, w.err)
		}
		for _, d := range w.got {
			v, ok := sent.Load(d.name)
			if !ok {
				continue // a create that failed on the client side but was stored
			}
			lat := d.at.Sub(v.(time.Time))
			r.Lat = append(r.Lat, lat)
			if byReplica {
				ds = append(ds, delivered{watchAuditID(ns, i), createAuditID(ns, d.name), lat})
			}
			if d.at.After(last) {
				last = d.at
			}
		}
		missing += int(want) - len(w.got)
	}
	r.OK = len(r.Lat)
	r.Elapsed = last.Sub(first)
	if missing > 0 {
		r.Errors += missing
		r.Note = fmt.Sprintf("%d deliveries missing", missing)
	}
	r.Note = joinNote(r.Note, fmt.Sprintf("%d creates × %d watchers", cr.OK, c.Watchers))
	r.finish()
	if byReplica {
		if err := splitDeliveries(t, r, ds); err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
	}
	return r, nil
}

// The Audit-IDs of the requests of a watch fan-out in namespace ns.
func watchAuditID(ns string, i int) string { return fmt.Sprintf("%s-watch-%d", ns, i) }
func createAuditID(ns, name string) string { return ns + "-create-" + name }

// splitDeliveries fills r's Cross, Same and Unattributed from ds and the
// replicas' audit logs, once these name every delivery's requests (a
// replica writes a create's event after its response) or after 10 s.
func splitDeliveries(t *target, r *phaseResult, ds []delivered) error {
	var served map[string]int
	err := cluster.Poll(10*time.Second, nil, func() error {
		var err error
		if served, err = t.served(); err != nil {
			return err
		}
		for _, d := range ds {
			if _, ok := served[d.watch]; !ok {
				return fmt.Errorf("no audit event of %s", d.watch)
			}
			if _, ok := served[d.create]; !ok {
				return fmt.Errorf("no audit event of %s", d.create)
			}
		}
		return nil
	})
	if served == nil {
		return err
	}
	cross, same, unattributed := splitByReplica(ds, served)
	r.Cross, r.Same, r.Unattributed = &cross, &same, unattributed
	return nil
}

// ensureObjects makes namespace ns hold objects Flunders named f-0..f-(n-1)
// (creating the missing ones with workers), untimed.
func ensureObjects(ctx context.Context, t *target, ns string, n, workers int) error {
	list, err := t.list(ctx, ns)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, f := range list.Items {
		have[f.Name] = true
	}
	var todo []int
	for i := range n {
		if !have[fmt.Sprintf("f-%d", i)] {
			todo = append(todo, i)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	failed, firstErr := eachParallel(ctx, workers, len(todo), false, func(j int) error {
		i := todo[j]
		return createRetrying(ctx, t, t.k.newObject(ns, fmt.Sprintf("f-%d", i), i))
	})
	if firstErr != nil {
		return fmt.Errorf("creating %d objects in %s: %d failed, first: %w", len(todo), ns, failed, firstErr)
	}
	return ctx.Err()
}

// eachParallel runs do(0) … do(n-1), each once, on workers goroutines until
// ctx ends, and returns how many failed and the first error; with stop, no
// call starts after the first failure.
func eachParallel(ctx context.Context, workers, n int, stop bool, do func(j int) error) (failed int, first error) {
	var next atomic.Int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				j := int(next.Add(1)) - 1
				if j >= n || ctx.Err() != nil {
					return
				}
				mu.Lock()
				halt := stop && first != nil
				mu.Unlock()
				if halt {
					return
				}
				if err := do(j); err != nil {
					mu.Lock()
					failed++
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return failed, first
}

// createRetrying creates obj, again after a failure the server may not repeat (a timeout of
// its storage, a 429 or 5xx), as a client would; a create that went through before its answer
// was lost is then found to exist.
func createRetrying(ctx context.Context, t *target, obj *object) error {
	var err error
	for attempt := range fillAttempts {
		if _, err = t.create(ctx, obj); err == nil || apierrors.IsAlreadyExists(err) {
			return nil
		}
		if !apierrors.IsServerTimeout(err) && !apierrors.IsTimeout(err) && !apierrors.IsTooManyRequests(err) &&
			!apierrors.IsInternalError(err) && !apierrors.IsServiceUnavailable(err) && !strings.Contains(err.Error(), "timed out") {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(attempt+1) * time.Second):
		}
	}
	return err
}

// fillAttempts bounds createRetrying: a storage that stays down fails the fill.
const fillAttempts = 5

// warmUp waits until the server (each of t's servers) admits a create, then
// reads a little from the small list's namespace: untimed, the same for both
// servers.
func warmUp(ctx context.Context, t *target, round int, c config) error {
	for _, t := range t.all() {
		if err := waitAdmits(ctx, t, round); err != nil {
			return err
		}
	}
	small := listNamespace(c.ListSmall)
	r := runPhase(ctx, "warm-up", c.Workers, 200, time.Minute, func(ctx context.Context, w, k int) error {
		if k < len(t.all()) {
			_, err := t.on(k).listRaw(ctx, small)
			return err
		}
		_, err := t.on(w).get(ctx, small, fmt.Sprintf("f-%d", rand.IntN(c.ListSmall)))
		return err
	})
	if r.Errors > 0 {
		return fmt.Errorf("warm-up: %d errors", r.Errors)
	}
	return nil
}

// fillListNamespaces waits until t admits creates, then fills the small and
// the large list's namespaces with o's prepare workers (untimed).
func fillListNamespaces(ctx context.Context, t *target, o *options) error {
	err := waitAdmits(ctx, t, 0)
	if err == nil {
		err = ensureObjects(ctx, t, listNamespace(o.ListSmall), o.ListSmall, o.prepareWorkers)
	}
	if err == nil {
		err = ensureObjects(ctx, t, listNamespace(o.ListLarge), o.ListLarge, o.prepareWorkers)
	}
	return err
}

// waitAdmits retries a create until the server admits it: sample-apiserver's
// BanFlunder admission refuses creates until its Fischer informer has synced,
// which can be after /readyz.
func waitAdmits(ctx context.Context, t *target, round int) error {
	name := fmt.Sprintf("warm-r%d", round)
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, err := t.create(ctx, t.k.newObject("warm", name, round))
		if err == nil || apierrors.IsAlreadyExists(err) {
			break
		}
		// Only "not ready yet" is worth waiting for (BanFlunder answers 403;
		// a server whose request-header authenticator has not yet read
		// kube-apiserver's front-proxy CA answers 401).
		retry := apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) || apierrors.IsServiceUnavailable(err) || apierrors.IsTooManyRequests(err)
		if !retry || time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("warm-up create: %w", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return nil
}
