package e2e

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
)

const (
	// replicasNS is the namespace TestSQLReplicas writes in.
	replicasNS = "ha"
	// replicasCompaction is the servers' --etcd-compaction-interval in TestSQLReplicas (the
	// default is 5 minutes): short, so that kine compacts within the test.
	replicasCompaction = 2 * time.Second
	// kineRetain is how many of the newest revisions kine never compacts (the generated
	// server's kineCompactRetain, which k3s uses too).
	kineRetain = 1000
)

var flundersV1beta1 = schema.GroupVersionResource{Group: wardleGroup, Version: "v1beta1", Resource: "flunders"}

// replica is one of several servers on one database, and a client of its Flunders.
type replica struct {
	name    string
	srv     *server
	client  dynamic.ResourceInterface
	clients dynamic.Interface
	// restart starts the server again (after a stop) on its data dir, port and kubeconfig.
	restart func(t *testing.T)
}

// TestSQLReplicas runs two examples/wardle servers on one Postgres, as a Deployment of two
// replicas on a database does, both started at once on the empty database. What is written
// through one is read, listed and watched through the other; two updates of one object at the
// same resourceVersion through the two make one winner and one 409; an informer on one stays
// in sync with writes through the other. kine compacts the database (the servers' compactor
// runs every few seconds here) without a watcher losing its place, and a list at a compacted
// resourceVersion answers 410 Gone, as on etcd. One replica killed and started again: its
// informer is in sync again by itself, and a watch from the compacted resourceVersion answers
// 410 Gone. Postgres restarted by a crash in the middle of writes through both loses none that
// was acknowledged.
func TestSQLReplicas(t *testing.T) {
	bin := loadServerBin(t)
	endpoint, db := startPostgres(t)
	t.Setenv(wardleDatastoreEnv, endpoint)
	work := t.TempDir()
	var reps []*replica
	for _, name := range []string{"a", "b"} {
		port, dataDir, kubeconfig := freePort(t), filepath.Join(work, name), filepath.Join(work, name+".kubeconfig")
		launch := func(log string) *server {
			return launchServer(t, bin, work, port, dataDir, kubeconfig, filepath.Join(work, log), "--etcd-compaction-interval="+replicasCompaction.String())
		}
		r := &replica{name: name, srv: launch(name + ".log")}
		r.restart = func(t *testing.T) {
			r.srv = launch(name + "-restarted.log")
			r.srv.waitReady(t, kubeconfig)
		}
		reps = append(reps, r)
	}
	for _, r := range reps {
		r.srv.waitReady(t, r.srv.kubeconfig)
		cfg := restConfig(t, r.srv.kubeconfig)
		cfg.QPS, cfg.Burst = loadQPS, loadQPS // client-go's 5 QPS would make checkCompaction's writes take minutes
		clients, err := dynamic.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		r.clients = clients
		r.client = r.clients.Resource(flundersV1beta1).Namespace(replicasNS)
	}
	a, b := reps[0], reps[1]
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	informer := startFlunderInformer(ctx, t, b)
	checkReplicaReads(ctx, t, a, b)
	checkReplicaConflicts(ctx, t, reps)
	checkInformerInSync(ctx, t, informer, a)
	compacted := checkCompaction(ctx, t, reps, endpoint)
	checkInformerInSync(ctx, t, informer, a)
	checkReplicaRestart(ctx, t, a, b, informer, compacted)
	checkWritesAcrossDBCrash(ctx, t, reps, db, endpoint)
	checkInformerInSync(ctx, t, informer, a)
}

// newFlunder is a v1beta1 Flunder in replicasNS with spec.replicas n.
func newFlunder(name string, n int64) *unstructured.Unstructured {
	obj := flunderObject(flundersV1beta1, map[string]any{"name": name, "namespace": replicasNS})
	obj.Object["spec"] = map[string]any{"replicas": n}
	return obj
}

// watchEvent is an event a watch delivered: its type, object name and resourceVersion.
type watchEvent struct {
	typ      watch.EventType
	name, rv string
}

func (e watchEvent) String() string { return fmt.Sprintf("%s %s@%s", e.typ, e.name, e.rv) }

// eventLog collects a watch's events as they arrive.
type eventLog struct {
	mu     sync.Mutex
	events []watchEvent
	ended  bool
}

// watchFrom opens a watch of Flunders on r from resourceVersion rv and collects its events
// until ctx ends.
func watchFrom(ctx context.Context, t *testing.T, r *replica, rv string) (*eventLog, error) {
	t.Helper()
	w, err := r.client.Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
	if err != nil {
		return nil, err
	}
	l := &eventLog{}
	go func() {
		defer w.Stop()
		for ev := range w.ResultChan() {
			l.mu.Lock()
			if u, ok := ev.Object.(*unstructured.Unstructured); ok && ev.Type != watch.Bookmark {
				l.events = append(l.events, watchEvent{ev.Type, u.GetName(), u.GetResourceVersion()})
			} else if ev.Type == watch.Error {
				l.events = append(l.events, watchEvent{ev.Type, fmt.Sprint(apierrors.FromObject(ev.Object)), ""})
			}
			l.mu.Unlock()
		}
		l.mu.Lock()
		l.ended = true
		l.mu.Unlock()
	}()
	return l, nil
}

// waitFor polls until the log holds an event of type typ for name at resourceVersion rv,
// and returns how long that took.
func (l *eventLog) waitFor(typ watch.EventType, name, rv string) (time.Duration, error) {
	start := time.Now()
	want := watchEvent{typ, name, rv}
	err := poll(eventTimeout, func() error {
		l.mu.Lock()
		defer l.mu.Unlock()
		if slices.Contains(l.events, want) {
			return nil
		}
		if l.ended {
			return stopPolling{fmt.Errorf("the watch ended without %s; it saw %v", want, l.events)}
		}
		return fmt.Errorf("no %s among %d events", want, len(l.events))
	})
	return time.Since(start), err
}

func (l *eventLog) snapshot() []watchEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events)
}

// checkReplicaReads creates and updates a Flunder through a. A watch on b sees the create,
// after the time b's kine takes to poll the database for writes made elsewhere. Right after the
// update, b gets it and lists it at once (consistent reads: a get or a list without
// resourceVersion sees every write acknowledged before it, whichever replica took it), and the
// watch sees the update too.
func checkReplicaReads(ctx context.Context, t *testing.T, a, b *replica) {
	t.Helper()
	list, err := b.client.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing flunders through %s: %v", b.name, err)
	}
	events, err := watchFrom(ctx, t, b, list.GetResourceVersion())
	if err != nil {
		t.Fatalf("watching flunders through %s: %v", b.name, err)
	}
	created, err := a.client.Create(ctx, newFlunder("shared", 1), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating flunder shared through %s: %v", a.name, err)
	}
	latency, err := events.waitFor(watch.Added, "shared", created.GetResourceVersion())
	if err != nil {
		t.Errorf("a watch on %s did not see the create through %s: %v", b.name, a.name, err)
	}
	t.Logf("a watch on %s saw the create through %s after %s", b.name, a.name, latency.Round(time.Millisecond))

	_ = unstructured.SetNestedField(created.Object, int64(2), "spec", "replicas")
	updated, err := a.client.Update(ctx, created, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("updating flunder shared through %s: %v", a.name, err)
	}
	checkReadsAfterWrite(ctx, t, b, updated)
	if latency, err = events.waitFor(watch.Modified, "shared", updated.GetResourceVersion()); err != nil {
		t.Errorf("a watch on %s did not see the update through %s: %v", b.name, a.name, err)
	}
	t.Logf("a watch on %s saw the update through %s after %s", b.name, a.name, latency.Round(time.Millisecond))
}

// checkReadsAfterWrite gets and lists (without resourceVersion, a consistent read) the object
// written through another replica just before through r, once, and wants the write's
// resourceVersion in both.
func checkReadsAfterWrite(ctx context.Context, t *testing.T, r *replica, written *unstructured.Unstructured) {
	t.Helper()
	name, rv := written.GetName(), written.GetResourceVersion()
	start := time.Now()
	if got, err := r.client.Get(ctx, name, metav1.GetOptions{}); err != nil || got.GetResourceVersion() != rv {
		t.Errorf("get %s through %s right after a write acknowledged at resourceVersion %s through another replica: %v %v", name, r.name, rv, rvOf(got), err)
	}
	list, err := r.client.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list through %s: %v", r.name, err)
	}
	i := slices.IndexFunc(list.Items, func(u unstructured.Unstructured) bool { return u.GetName() == name })
	if i < 0 || list.Items[i].GetResourceVersion() != rv {
		t.Errorf("a list through %s right after a write of %s acknowledged at resourceVersion %s through another replica does not have it (list at %s)", r.name, name, rv, list.GetResourceVersion())
	}
	t.Logf("get and consistent list through %s right after a write through another replica: %s", r.name, time.Since(start).Round(time.Millisecond))
}

func rvOf(u *unstructured.Unstructured) string {
	if u == nil {
		return "(none)"
	}
	return "resourceVersion " + u.GetResourceVersion()
}

// checkReplicaConflicts updates one Flunder through every replica at once, each from the
// same resourceVersion, a few times: exactly one update wins each round, the others get 409
// Conflict, and the object holds the winner's value.
func checkReplicaConflicts(ctx context.Context, t *testing.T, reps []*replica) {
	t.Helper()
	const rounds = 5
	for round := range rounds {
		cur, err := reps[round%len(reps)].client.Get(ctx, "shared", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get shared: %v", err)
		}
		results := make([]error, len(reps))
		var wg sync.WaitGroup
		for i, r := range reps {
			obj := cur.DeepCopy()
			_ = unstructured.SetNestedField(obj.Object, int64(100*round+i), "spec", "replicas")
			wg.Go(func() { _, results[i] = r.client.Update(ctx, obj, metav1.UpdateOptions{}) })
		}
		wg.Wait()
		winner := -1
		for i, err := range results {
			switch {
			case err == nil && winner < 0:
				winner = i
			case err == nil:
				t.Errorf("round %d: updates through %s and %s at resourceVersion %s both succeeded", round, reps[winner].name, reps[i].name, cur.GetResourceVersion())
			case !apierrors.IsConflict(err):
				t.Errorf("round %d: the update through %s at resourceVersion %s failed with %v; want success or 409 Conflict", round, reps[i].name, cur.GetResourceVersion(), err)
			}
		}
		if winner < 0 {
			t.Errorf("round %d: no update at resourceVersion %s succeeded: %v", round, cur.GetResourceVersion(), results)
			continue
		}
		got, err := reps[(round+1)%len(reps)].client.Get(ctx, "shared", metav1.GetOptions{})
		if n, _, _ := unstructured.NestedInt64(got.Object, "spec", "replicas"); err != nil || n != int64(100*round+winner) {
			t.Errorf("round %d: after the update through %s won, shared has spec.replicas %d (%v); want %d", round, reps[winner].name, n, err, 100*round+winner)
		}
	}
}

// startFlunderInformer starts an informer of replicasNS's Flunders with client-go's defaults
// on r, running until ctx ends, and waits for it to sync.
func startFlunderInformer(ctx context.Context, t *testing.T, r *replica) cache.SharedIndexInformer {
	t.Helper()
	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(r.clients, 0, replicasNS, nil)
	informer := factory.ForResource(flundersV1beta1).Informer()
	factory.Start(ctx.Done())
	t.Cleanup(factory.Shutdown)
	syncCtx, cancel := context.WithTimeout(ctx, eventTimeout)
	defer cancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), informer.HasSynced) {
		t.Fatalf("an informer on %s did not sync in %s", r.name, eventTimeout)
	}
	return informer
}

// checkInformerInSync waits until the informer holds every Flunder of replicasNS a lists,
// each at the resourceVersion a lists, and nothing else.
func checkInformerInSync(ctx context.Context, t *testing.T, informer cache.SharedIndexInformer, a *replica) {
	t.Helper()
	list, err := a.client.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list through %s: %v", a.name, err)
	}
	want := map[string]string{}
	for _, u := range list.Items {
		want[u.GetName()] = u.GetResourceVersion()
	}
	start := time.Now()
	if err := poll(eventTimeout, func() error {
		got := map[string]string{}
		for _, obj := range informer.GetStore().List() {
			u := obj.(*unstructured.Unstructured)
			got[u.GetName()] = u.GetResourceVersion()
		}
		if diff := diffVersions(got, want); diff != "" {
			return errors.New(diff)
		}
		return nil
	}); err != nil {
		t.Errorf("an informer on the other replica is not in sync with the %d flunders listed through %s: %v", len(want), a.name, err)
		return
	}
	t.Logf("an informer on the other replica holds the %d flunders listed through %s after %s", len(want), a.name, time.Since(start).Round(time.Millisecond))
}

// diffVersions says which names differ between two name→resourceVersion maps.
func diffVersions(got, want map[string]string) string {
	var diffs []string
	for name, rv := range want {
		if got[name] != rv {
			diffs = append(diffs, fmt.Sprintf("%s at %q, want %q", name, got[name], rv))
		}
	}
	for name, rv := range got {
		if _, ok := want[name]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s at %q, want none", name, rv))
		}
	}
	slices.Sort(diffs)
	return strings.Join(diffs, "; ")
}

// checkCompaction writes more than kine keeps (kineRetain revisions) through both replicas
// while a watch on b, opened from a resourceVersion before the writes, runs. The servers'
// compactor compacts kine's database past that resourceVersion: kine records it, and a list
// at that resourceVersion answers 410 Gone, the answer a client-go reflector relists on. The
// watch keeps its place: it delivers every acknowledged write, in order, including one made
// after the compaction.
// It returns that resourceVersion.
func checkCompaction(ctx context.Context, t *testing.T, reps []*replica, endpoint string) string {
	t.Helper()
	a, b := reps[0], reps[1]
	list, err := b.client.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list through %s: %v", b.name, err)
	}
	from := list.GetResourceVersion()
	events, err := watchFrom(ctx, t, b, from)
	if err != nil {
		t.Fatalf("watch through %s from resourceVersion %s: %v", b.name, from, err)
	}

	// Writers, each updating its own Flunder through the replicas in turn.
	const writers, updates = 8, kineRetain/8 + 20
	start := time.Now()
	acked := make([][]watchEvent, writers)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			name := fmt.Sprintf("churn-%d", w)
			obj, err := reps[w%len(reps)].client.Create(ctx, newFlunder(name, 0), metav1.CreateOptions{})
			if err != nil {
				t.Errorf("create %s: %v", name, err)
				return
			}
			acked[w] = append(acked[w], watchEvent{watch.Added, name, obj.GetResourceVersion()})
			for i := range updates {
				_ = unstructured.SetNestedField(obj.Object, int64(i+1), "spec", "replicas")
				if obj, err = reps[(w+i+1)%len(reps)].client.Update(ctx, obj, metav1.UpdateOptions{}); err != nil {
					t.Errorf("update %s: %v", name, err)
					return
				}
				acked[w] = append(acked[w], watchEvent{watch.Modified, name, obj.GetResourceVersion()})
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("%d writes through both replicas in %s", writers*(updates+1), time.Since(start).Round(time.Millisecond))

	fromRV, _ := strconv.ParseInt(from, 10, 64)
	psql := filepath.Join(postgresBinDir(t), "psql")
	start = time.Now()
	if err := poll(time.Minute, func() error {
		compacted, err := kineCompactRevision(psql, endpoint)
		if err != nil {
			return err
		}
		if compacted <= fromRV {
			return fmt.Errorf("kine's database is compacted to revision %d, not past %d", compacted, fromRV)
		}
		_, err = b.client.List(ctx, metav1.ListOptions{ResourceVersion: from, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
		if status, ok := err.(apierrors.APIStatus); !ok || status.Status().Code != 410 {
			return fmt.Errorf("kine compacted to %d; a list at resourceVersion %s answers %v, want 410 Gone", compacted, from, err)
		}
		return nil
	}); err != nil {
		t.Fatalf("no compaction past resourceVersion %s: %v", from, err)
	}
	t.Logf("kine's database compacted past resourceVersion %s %s after the writes", from, time.Since(start).Round(time.Millisecond))

	last, err := a.client.Get(ctx, "churn-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_ = unstructured.SetNestedField(last.Object, int64(updates+1), "spec", "replicas") // a count no churn update wrote
	if last, err = a.client.Update(ctx, last, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update churn-0 after the compaction: %v", err)
	}
	acked[0] = append(acked[0], watchEvent{watch.Modified, "churn-0", last.GetResourceVersion()})
	if _, err := events.waitFor(watch.Modified, "churn-0", last.GetResourceVersion()); err != nil {
		t.Fatalf("the watch from resourceVersion %s on %s lost its place across the compaction: %v", from, b.name, err)
	}
	seen := events.snapshot()
	for i := 1; i < len(seen); i++ {
		if prev, cur := mustRV(t, seen[i-1].rv), mustRV(t, seen[i].rv); cur <= prev {
			t.Errorf("the watch from resourceVersion %s delivered %s after %s", from, seen[i], seen[i-1])
		}
	}
	for _, writes := range acked {
		name := writes[0].name
		got := slices.DeleteFunc(slices.Clone(seen), func(e watchEvent) bool { return e.name != name })
		if !slices.Equal(got, writes) {
			t.Errorf("the watch from resourceVersion %s across the compaction delivered %d events of %s; want its %d acknowledged writes in order (first difference: %s)",
				from, len(got), name, len(writes), firstEventDifference(got, writes))
		}
	}
	return from
}

// checkReplicaRestart kills b, as a node failure does, writes through a meanwhile and starts
// b again on the same database. The informer on b, which lost its watch, is in sync
// again by itself, and a watch on b from the compacted resourceVersion answers 410 Gone (b's
// watch cache starts after it), which client-go's reflectors answer by listing again.
func checkReplicaRestart(ctx context.Context, t *testing.T, a, b *replica, informer cache.SharedIndexInformer, compacted string) {
	t.Helper()
	// Killed, not stopped: with watches open the server's graceful stop waits out its
	// shutdown timeout (a minute).
	b.srv.proc.Kill()
	for i := range 3 {
		if _, err := a.client.Create(ctx, newFlunder(fmt.Sprintf("while-b-down-%d", i), 0), metav1.CreateOptions{}); err != nil {
			t.Fatalf("create through %s while %s is down: %v", a.name, b.name, err)
		}
	}
	b.restart(t)
	checkInformerInSync(ctx, t, informer, a)

	w, err := b.client.Watch(ctx, metav1.ListOptions{ResourceVersion: compacted})
	if err == nil {
		defer w.Stop()
		select {
		case ev := <-w.ResultChan():
			if ev.Type == watch.Error {
				err = apierrors.FromObject(ev.Object)
			} else {
				err = fmt.Errorf("%s event for %v", ev.Type, ev.Object)
			}
		case <-time.After(eventTimeout):
			err = errors.New("no event")
		}
	}
	if status, ok := err.(apierrors.APIStatus); !ok || status.Status().Code != 410 {
		t.Errorf("a watch on %s, restarted, from the compacted resourceVersion %s: %v; want 410 Gone", b.name, compacted, err)
	}
}

func mustRV(t *testing.T, rv string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil {
		t.Fatalf("resourceVersion %q is not a number: %v", rv, err)
	}
	return n
}

func firstEventDifference(got, want []watchEvent) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("#%d is %s, want %s", i, got[i], want[i])
		}
	}
	if len(got) < len(want) {
		return fmt.Sprintf("missing from %s on", want[len(got)])
	}
	return fmt.Sprintf("extra from %s on", got[len(want)])
}

// kineCompactRevision asks the database which revision kine has compacted it to, as an
// operator would with psql.
func kineCompactRevision(psql, endpoint string) (int64, error) {
	r := runCmd(cmdOpts{Timeout: cmdTimeout}, psql, endpoint, "-tAc", "SELECT MAX(prev_revision) FROM kine WHERE name = 'compact_rev_key'")
	if r.ExitCode != 0 {
		return 0, fmt.Errorf("psql: %s", r)
	}
	return strconv.ParseInt(strings.TrimSpace(r.Stdout), 10, 64)
}

// checkWritesAcrossDBCrash creates Flunders through both replicas from several clients while
// Postgres is stopped by a crash (SIGQUIT: its immediate shutdown, with no checkpoint, so
// that its next start recovers from its write-ahead log) and started again. Writes fail while
// it is down and succeed again once it is back, by themselves; every write a client was told
// succeeded (2xx) is there afterwards, through both replicas.
func checkWritesAcrossDBCrash(ctx context.Context, t *testing.T, reps []*replica, db *dbServer, endpoint string) {
	t.Helper()
	const writers = 4
	var (
		mu     sync.Mutex
		acked  []string
		failed int
		stop   = make(chan struct{})
		wg     sync.WaitGroup
	)
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(acked) }
	for w := range writers {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				name := fmt.Sprintf("stream-%d-%d", w, i)
				rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				_, err := reps[(w+i)%len(reps)].client.Create(rctx, newFlunder(name, int64(i)), metav1.CreateOptions{})
				cancel()
				mu.Lock()
				if err == nil {
					acked = append(acked, name)
				} else {
					failed++
				}
				mu.Unlock()
				if err != nil {
					time.Sleep(100 * time.Millisecond) // not to spin while the database is down
				}
			}
		})
	}
	stopWriters := sync.OnceFunc(func() { close(stop); wg.Wait() })
	defer stopWriters()

	waitWrites := func(n int, what string) {
		t.Helper()
		if err := poll(2*time.Minute, func() error {
			if got := count(); got < n {
				return fmt.Errorf("%d acknowledged writes, want %d", got, n)
			}
			return nil
		}); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	waitWrites(20, "writes before the crash")
	if _, err := db.Process.Signal(syscall.SIGQUIT, 30*time.Second); err != nil {
		t.Fatalf("crashing postgres: %v", err)
	}
	before := count()
	db.restart(t)
	waitWrites(before+20, "writes after postgres started again")
	stopWriters()
	t.Logf("%d creates acknowledged, %d failed, across the crash and restart of postgres", len(acked), failed)

	for _, r := range reps {
		list, err := r.client.List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatalf("list through %s: %v", r.name, err)
		}
		have := map[string]bool{}
		for _, u := range list.Items {
			have[u.GetName()] = true
		}
		var lost []string
		for _, name := range acked {
			if !have[name] {
				lost = append(lost, name)
			}
		}
		if len(lost) > 0 {
			t.Errorf("after postgres crashed and restarted, %d of %d acknowledged creates are missing through %s: %v", len(lost), len(acked), r.name, lost)
			// Whether the database has the object's rows tells kine's fault from the API server's.
			for _, name := range lost {
				_, err := r.client.Get(ctx, name, metav1.GetOptions{})
				rows := runCmd(cmdOpts{Timeout: cmdTimeout}, filepath.Join(postgresBinDir(t), "psql"), endpoint, "-tAc",
					"SELECT id, created, deleted, prev_revision FROM kine WHERE name LIKE '%/"+replicasNS+"/"+name+"'")
				t.Logf("%s: get through %s: %v; its rows in kine's table: %q", name, r.name, err, strings.TrimSpace(rows.Output()))
			}
		}
	}
}
