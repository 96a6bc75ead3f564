package main

import (
	"context"
	"fmt"
	"log"
	"math/rand/v2"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
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
	CPU     time.Duration // the server process's CPU time (user+sys) during the operation
	Load    string        // 1-minute load average before it
	Paced   bool          // the load was a fixed rate: throughput does not compare
	Note    string        `json:",omitempty"`
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

// target is one running server as the workload sees it.
type target struct {
	rc  *rest.RESTClient
	url string
	cr  *credentials
	pid int // the server process, for its CPU time
}

func (t *target) create(ctx context.Context, f *flunder) (*flunder, error) {
	out := &flunder{}
	err := t.rc.Post().Namespace(f.Namespace).Resource("flunders").Body(f).Do(ctx).Into(out)
	return out, err
}

func (t *target) get(ctx context.Context, ns, name string) (*flunder, error) {
	out := &flunder{}
	err := t.rc.Get().Namespace(ns).Resource("flunders").Name(name).Do(ctx).Into(out)
	return out, err
}

func (t *target) update(ctx context.Context, f *flunder) (*flunder, error) {
	out := &flunder{}
	err := t.rc.Put().Namespace(f.Namespace).Resource("flunders").Name(f.Name).Body(f).Do(ctx).Into(out)
	return out, err
}

// listRaw is a full list of a namespace, read to the last byte and not
// decoded: the server's work, not the client's.
func (t *target) listRaw(ctx context.Context, ns string) ([]byte, error) {
	return t.rc.Get().Namespace(ns).Resource("flunders").Do(ctx).Raw()
}

func (t *target) list(ctx context.Context, ns string) (*flunderList, error) {
	out := &flunderList{}
	err := t.rc.Get().Namespace(ns).Resource("flunders").Do(ctx).Into(out)
	return out, err
}

// config is the workload's size.
type config struct {
	Workers     int
	Creates     int
	Gets        int
	Updates     int
	ListSmall   int // objects in the small list's namespace
	ListLarge   int // objects in the large list's namespace
	ListSmallN  int // lists of the small namespace
	ListLargeN  int // lists of the large namespace
	Watchers    int
	WatchEvents int // objects created while the watchers watch, as fast as the server takes them
	// WatchPacedEvents objects created at WatchRate per second while the
	// watchers watch (WatchRate 0: no paced watch).
	WatchPacedEvents int
	WatchRate        float64
	PhaseTimeout     time.Duration
}

func listNamespace(n int) string { return fmt.Sprintf("list-%d", n) }

// session is one server's state during a round: the objects its creates
// made, which get and update then use.
type session struct {
	t       *target
	c       config
	round   int
	created [][]*flunder // per worker: what it created, kept current by update
	names   []string
}

func newSession(t *target, c config, round int) *session {
	return &session{t: t, c: c, round: round, created: make([][]*flunder, c.Workers)}
}

func (s *session) crud() string { return fmt.Sprintf("crud-r%d", s.round) }

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
	for _, l := range []struct{ objects, n int }{{c.ListSmall, c.ListSmallN}, {c.ListLarge, c.ListLargeN}} {
		ops = append(ops, operation{Name: fmt.Sprintf("list %d", l.objects), run: func(s *session, ctx context.Context) (*phaseResult, error) {
			return s.list(ctx, l.objects, l.n)
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

// measure runs op on s, with the server's CPU time around it and hook (if not
// nil) called before it and what hook returns after it.
func (op operation) measure(ctx context.Context, s *session, hook func(op string) func()) (*phaseResult, error) {
	if hook != nil {
		defer hook(op.Name)()
	}
	cpu := processCPU(s.t.pid)
	r, err := op.run(s, ctx)
	if r != nil {
		r.Op, r.Paced = op.Name, op.Paced
		r.CPU = processCPU(s.t.pid) - cpu
	}
	return r, err
}

// create: distinct new objects.
func (s *session) create(ctx context.Context) (*phaseResult, error) {
	var n atomic.Int64
	r := runPhase(ctx, "create", s.c.Workers, s.c.Creates, s.c.PhaseTimeout, func(ctx context.Context, w, k int) error {
		i := int(n.Add(1))
		out, err := s.t.create(ctx, newFlunder(s.crud(), fmt.Sprintf("c-%d", i), i))
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
		_, err := s.t.get(ctx, s.crud(), s.names[rand.IntN(len(s.names))])
		return err
	}), nil
}

// update: each worker replaces the objects it created in turn, with the
// resourceVersion it last saw (sample-apiserver refuses unconditional updates)
// and a changed spec. No two workers touch the same object: no conflicts.
func (s *session) update(ctx context.Context) (*phaseResult, error) {
	return runPhase(ctx, "update", s.c.Workers, s.c.Updates, s.c.PhaseTimeout, func(ctx context.Context, w, k int) error {
		own := s.created[w]
		if len(own) == 0 {
			return fmt.Errorf("worker %d created nothing to update", w)
		}
		j := k % len(own)
		f := own[j].DeepCopyObject().(*flunder)
		f.Spec.Reference = fmt.Sprintf("ref-%s-u%d", f.Name, k)
		out, err := s.t.update(ctx, f)
		if err == nil {
			own[j] = out
		}
		return err
	}), nil
}

// list: n full lists of the namespace holding objects objects, each read to
// the last byte; one response is then decoded and counted (untimed).
func (s *session) list(ctx context.Context, objects, n int) (*phaseResult, error) {
	ns := listNamespace(objects)
	var last []byte
	r := runPhase(ctx, "list", s.c.Workers, n, s.c.PhaseTimeout, func(ctx context.Context, w, k int) error {
		body, err := s.t.listRaw(ctx, ns)
		if err == nil && w == 0 {
			last = body
		}
		return err
	})
	if last != nil {
		var list flunderList
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

func (s *session) watch(ctx context.Context) (*phaseResult, error) {
	return watchFanOut(ctx, s.t, s.c, fmt.Sprintf("watch-r%d", s.round), s.c.WatchEvents, 0, s.c.PhaseTimeout)
}

func (s *session) watchPaced(ctx context.Context) (*phaseResult, error) {
	return watchFanOut(ctx, s.t, s.c, fmt.Sprintf("watchpaced-r%d", s.round), s.c.WatchPacedEvents, s.c.WatchRate, s.c.PhaseTimeout)
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

func runtimeDecode(data []byte, into *flunderList) error {
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
// own connection (as separate clients would), then creates events objects
// there (events <= 0: until limit): with rate 0, from c.Workers workers as fast
// as the server takes them (closed loop: the throughput of the fan-out); with
// rate > 0, one create every 1/rate s whatever the responses (open loop, at
// most c.Workers in flight: the latency of the fan-out at a load both servers
// keep up with). A delivery's latency is from the moment its create request
// was sent to the moment a watcher decoded the ADDED event: from the send
// rather than from the create's response because the event may reach a
// watcher before the response reaches the creator. Throughput is deliveries
// per second from the first create to the last delivery.
func watchFanOut(ctx context.Context, t *target, c config, ns string, events int, rate float64, limit time.Duration) (*phaseResult, error) {
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
		hc       interface{ CloseIdleConnections() }
		got      []delivery
		n        atomic.Int64
		err      error
		finished chan struct{}
	}
	ws := make([]*watcher, c.Watchers)
	for i := range ws {
		hc := t.cr.httpClient()
		rc, err := restClient(t.url, hc)
		if err != nil {
			return nil, err
		}
		wi, err := rc.Get().Namespace(ns).Resource("flunders").
			VersionedParams(&metav1.ListOptions{Watch: true, ResourceVersion: list.ResourceVersion}, parameterCodec).
			Watch(wctx)
		if err != nil {
			return nil, fmt.Errorf("%s: starting watcher %d: %w", op, i, err)
		}
		ws[i] = &watcher{w: wi, hc: hc.Transport.(proxyHeaders).rt, finished: make(chan struct{})}
	}
	defer func() {
		for _, w := range ws {
			w.w.Stop()
			w.hc.CloseIdleConnections()
		}
	}()
	for _, w := range ws {
		go func() {
			defer close(w.finished)
			for ev := range w.w.ResultChan() {
				at := time.Now()
				switch ev.Type {
				case watch.Added:
					f, ok := ev.Object.(*flunder)
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
		f := newFlunder(ns, fmt.Sprintf("w-%d", i), i)
		sent.Store(f.Name, time.Now())
		_, err := t.create(ctx, f)
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
	for _, w := range ws {
		if w.err != nil && ctx.Err() == nil {
			return nil, fmt.Errorf("%s: a watcher failed: %w", op, w.err)
		}
		for _, d := range w.got {
			v, ok := sent.Load(d.name)
			if !ok {
				continue // a create that failed on the client side but was stored
			}
			r.Lat = append(r.Lat, d.at.Sub(v.(time.Time)))
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
	return r, nil
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
	var next atomic.Int64
	var failed atomic.Int64
	var firstErr error
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				j := int(next.Add(1)) - 1
				if j >= len(todo) || ctx.Err() != nil {
					return
				}
				i := todo[j]
				if _, err := t.create(ctx, newFlunder(ns, fmt.Sprintf("f-%d", i), i)); err != nil && !apierrors.IsAlreadyExists(err) {
					failed.Add(1)
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return fmt.Errorf("creating %d objects in %s: %d failed, first: %w", len(todo), ns, failed.Load(), firstErr)
	}
	return ctx.Err()
}

// warmUp waits until the server admits a create, then reads a little from the
// small list's namespace: untimed, the same for both servers.
func warmUp(ctx context.Context, t *target, round int, c config) error {
	if err := waitAdmits(ctx, t, round); err != nil {
		return err
	}
	small := listNamespace(c.ListSmall)
	r := runPhase(ctx, "warm-up", c.Workers, 200, time.Minute, func(ctx context.Context, w, k int) error {
		if k == 0 {
			_, err := t.listRaw(ctx, small)
			return err
		}
		_, err := t.get(ctx, small, fmt.Sprintf("f-%d", rand.IntN(c.ListSmall)))
		return err
	})
	if r.Errors > 0 {
		return fmt.Errorf("warm-up: %d errors", r.Errors)
	}
	return nil
}

// waitAdmits retries a create until the server admits it: sample-apiserver's
// BanFlunder admission refuses creates until its Fischer informer has synced,
// which can be after /readyz.
func waitAdmits(ctx context.Context, t *target, round int) error {
	name := fmt.Sprintf("warm-r%d", round)
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, err := t.create(ctx, newFlunder("warm", name, round))
		if err == nil || apierrors.IsAlreadyExists(err) {
			break
		}
		// Only "not ready yet" is worth waiting for (BanFlunder answers 403).
		retry := apierrors.IsForbidden(err) || apierrors.IsServiceUnavailable(err) || apierrors.IsTooManyRequests(err)
		if !retry || time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("warm-up create: %w", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return nil
}
