package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// Load and robustness tests against the built examples/wardle server in local mode: many
// concurrent writers, optimistic concurrency under contention, SIGKILL during writes, a
// second server on a busy data dir, and malformed requests.

const (
	loadVersion    = "v1alpha1"
	loadCounterKey = "load.apigen.dev/counter"
	loadQPS        = 10000 // client-go's default (5 QPS, burst 10) would make 4000 creates take minutes
)

var (
	loadFlunderGV  = schema.GroupVersion{Group: wardleGroup, Version: loadVersion}
	loadFlunderGVR = loadFlunderGV.WithResource("flunders")
)

// wardleVersion is the version the built examples/wardle server is stamped with.
const wardleVersion = "v0.1.0-e2e"

// loadBin is the examples/wardle server, built once per run (by the first test that needs
// it; a failed build is retried by the next test).
var loadBin struct {
	sync.Mutex
	path string
}

// loadServerBin skips under -short, like every e2e test, and returns the built wardle
// server. It builds a copy of examples/wardle, so a -mod=mod retry in buildServer never
// touches the committed tree.
func loadServerBin(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("e2e: builds the wardle API server and loads it over HTTPS; skipped in -short mode")
	}
	loadBin.Lock()
	defer loadBin.Unlock()
	if loadBin.path != "" {
		return loadBin.path
	}
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(root, "examples", "wardle")
	if _, err := os.Stat(filepath.Join(src, "go.mod")); err != nil {
		t.Fatalf("examples/wardle is not a Go module: %v", err)
	}
	proj := filepath.Join(binDir, "load-wardle")
	if err := os.RemoveAll(proj); err != nil {
		t.Fatal(err)
	}
	copyTree(t, src, proj)
	out := filepath.Join(binDir, "load-wardle-apiserver")
	// Stamped as the scaffolded Makefile's build does (TestLocalOperations checks /version).
	buildServer(t, proj, out, "-ldflags=-X example.com/wardle/pkg/cmd/server.version="+wardleVersion)
	loadBin.path = out
	return out
}

// loadEnv is one running wardle server and clients for it.
type loadEnv struct {
	work, dataDir, kubeconfig string
	srv                       *server
	dyn                       dynamic.Interface
	rc                        *rest.RESTClient // wardle.example.com/v1alpha1, JSON; answers carry their HTTP status
	warnings                  loadWarnings     // Warning headers the clients received
}

// loadWarnings records the Warning headers of responses instead of logging them.
type loadWarnings struct {
	mu    sync.Mutex
	texts []string
}

func (w *loadWarnings) HandleWarningHeader(code int, agent, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.texts = append(w.texts, text)
}

// take returns the warnings received since the last call.
func (w *loadWarnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	texts := w.texts
	w.texts = nil
	return texts
}

// loadStart starts the wardle server on a fresh data dir and a free port.
func loadStart(t *testing.T) *loadEnv {
	t.Helper()
	bin := loadServerBin(t)
	work := t.TempDir()
	e := &loadEnv{work: work, dataDir: filepath.Join(work, "data"), kubeconfig: filepath.Join(work, "kubeconfig")}
	e.srv = startServer(t, bin, work, freePort(t), e.dataDir, e.kubeconfig, filepath.Join(work, "server.log"))
	e.connect(t, e.kubeconfig)
	return e
}

// connect (re)creates the clients from kubeconfig, without client-side rate limiting.
func (e *loadEnv) connect(t *testing.T, kubeconfig string) {
	t.Helper()
	cfg := restConfig(t, kubeconfig)
	cfg.QPS, cfg.Burst = loadQPS, loadQPS
	cfg.Timeout = 30 * time.Second
	cfg.WarningHandler = &e.warnings
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rcCfg := dynamic.ConfigFor(cfg)
	rcCfg.GroupVersion = &loadFlunderGV
	rcCfg.APIPath = "/apis"
	rc, err := rest.RESTClientFor(rcCfg)
	if err != nil {
		t.Fatal(err)
	}
	e.dyn, e.rc = dyn, rc
}

// stop stops the server with SIGINT and expects a clean exit.
func (e *loadEnv) stop(t *testing.T) {
	t.Helper()
	if code, err := e.srv.proc.Signal(os.Interrupt, stopTimeout); err != nil || code != 0 {
		t.Errorf("after SIGINT the wardle server should exit 0; got exit %d, %v\n%s", code, err, e.srv.proc.Describe())
	}
}

// loadResult is the outcome of one request: HTTP status (0 when no answer arrived), body,
// and client-go's error.
type loadResult struct {
	code int
	body []byte
	err  error
}

func loadDo(ctx context.Context, req *rest.Request) loadResult {
	res := req.Do(ctx)
	var r loadResult
	res.StatusCode(&r.code)
	r.body, r.err = res.Raw()
	return r
}

func (r loadResult) String() string {
	body := string(r.body)
	if len(body) > 600 {
		body = body[:600] + " ..."
	}
	return fmt.Sprintf("HTTP %d, error %v, body %s", r.code, r.err, body)
}

// loadFlunderJSON is a Flunder in namespace ns as JSON.
func loadFlunderJSON(ns, name string, annotations map[string]string) []byte {
	meta := map[string]any{"name": name, "namespace": ns, "labels": map[string]any{"e2e": "load"}}
	if annotations != nil {
		meta["annotations"] = annotations
	}
	data, err := json.Marshal(map[string]any{
		"apiVersion": loadFlunderGV.String(),
		"kind":       "Flunder",
		"metadata":   meta,
		"spec":       map[string]any{"reference": "some-fischer", "referenceType": "Fischer"},
	})
	if err != nil {
		panic(err)
	}
	return data
}

// create POSTs a Flunder.
func (e *loadEnv) create(ctx context.Context, ns string, body []byte, params ...string) loadResult {
	req := e.rc.Post().Namespace(ns).Resource("flunders").Body(body)
	for i := 0; i+1 < len(params); i += 2 {
		req = req.Param(params[i], params[i+1])
	}
	return loadDo(ctx, req)
}

// listNames lists every Flunder in ns in pages of pageSize and returns the names, sorted,
// and the number of pages.
func (e *loadEnv) listNames(t *testing.T, ns string, pageSize int64) ([]string, int) {
	t.Helper()
	var names []string
	pages := 0
	opts := metav1.ListOptions{Limit: pageSize}
	for {
		list, err := e.dyn.Resource(loadFlunderGVR).Namespace(ns).List(context.Background(), opts)
		if err != nil {
			t.Fatalf("listing flunders in %s (page %d): %v", ns, pages+1, err)
		}
		pages++
		if pageSize > 0 && int64(len(list.Items)) > pageSize {
			t.Fatalf("list page %d has %d items, more than limit=%d", pages, len(list.Items), pageSize)
		}
		for _, it := range list.Items {
			if it.GetNamespace() != ns {
				t.Errorf("listing namespace %s returned %s/%s", ns, it.GetNamespace(), it.GetName())
			}
			names = append(names, it.GetName())
		}
		if list.GetContinue() == "" {
			break
		}
		opts.Continue = list.GetContinue()
	}
	sort.Strings(names)
	return names, pages
}

// loadStatus decodes a failed request's body as a metav1.Status and checks that it is one
// and that it carries the HTTP status as its code.
func loadStatus(t *testing.T, what string, r loadResult) metav1.Status {
	t.Helper()
	var st metav1.Status
	if err := json.Unmarshal(r.body, &st); err != nil {
		t.Errorf("%s: the answer is not a JSON metav1.Status (%v): %s", what, err, r)
		return st
	}
	if st.Kind != "Status" || st.APIVersion != "v1" || st.Status != metav1.StatusFailure || int(st.Code) != r.code {
		t.Errorf("%s: want a v1 Status with status Failure and code %d, got kind %q apiVersion %q status %q code %d: %s",
			what, r.code, st.Kind, st.APIVersion, st.Status, st.Code, r)
	}
	return st
}

// ---------------------------------------------------------------------------------------

// TestLoadConcurrentCreates: 8 writers × 500 creates in one namespace all answer 201, and a
// paginated list and a full list then show exactly those 4000 names.
func TestLoadConcurrentCreates(t *testing.T) {
	const writers, perWriter, ns = 8, 500, "load-creates"
	e := loadStart(t)
	ctx := context.Background()

	var mu sync.Mutex
	var failures []string
	codes := map[int]int{}
	start := time.Now()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWriter {
				name := fmt.Sprintf("flunder-w%d-%04d", w, i)
				r := e.create(ctx, ns, loadFlunderJSON(ns, name, nil))
				mu.Lock()
				codes[r.code]++
				if r.code != http.StatusCreated && len(failures) < 10 {
					failures = append(failures, fmt.Sprintf("create %s: %s", name, r))
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	took := time.Since(start)
	t.Logf("%d creates by %d writers in %s (%.0f/s); HTTP status counts: %v",
		writers*perWriter, writers, took.Round(time.Millisecond), float64(writers*perWriter)/took.Seconds(), codes)
	if codes[http.StatusCreated] != writers*perWriter {
		t.Errorf("%d of %d creates answered 201 Created (status counts %v); first failures:\n%s",
			codes[http.StatusCreated], writers*perWriter, codes, strings.Join(failures, "\n"))
	}

	var want []string
	for w := range writers {
		for i := range perWriter {
			want = append(want, fmt.Sprintf("flunder-w%d-%04d", w, i))
		}
	}
	sort.Strings(want)
	paged, pages := e.listNames(t, ns, 700)
	if pages != (len(want)+699)/700 {
		t.Errorf("listing %d objects with limit=700 took %d pages, want %d (is pagination honoured?)", len(want), pages, (len(want)+699)/700)
	}
	loadCompareNames(t, "paginated list", paged, want)
	full, _ := e.listNames(t, ns, 0)
	loadCompareNames(t, "unpaginated list", full, want)
	e.stop(t)
}

// loadCompareNames reports a difference between two sorted name lists.
func loadCompareNames(t *testing.T, what string, got, want []string) {
	t.Helper()
	if slices.Equal(got, want) {
		return
	}
	gotSet := map[string]int{}
	for _, n := range got {
		gotSet[n]++
	}
	var missing, extra, dup []string
	for _, n := range want {
		if gotSet[n] == 0 {
			missing = append(missing, n)
		}
	}
	wantSet := map[string]bool{}
	for _, n := range want {
		wantSet[n] = true
	}
	for n, c := range gotSet {
		if !wantSet[n] {
			extra = append(extra, n)
		}
		if c > 1 {
			dup = append(dup, n)
		}
	}
	t.Errorf("%s: %d names, want %d; missing %d %v, unexpected %d %v, duplicated %d %v", what, len(got), len(want),
		len(missing), loadFirst(missing), len(extra), loadFirst(extra), len(dup), loadFirst(dup))
}

func loadFirst(s []string) []string {
	sort.Strings(s)
	if len(s) > 10 {
		return append(s[:10:10], "...")
	}
	return s
}

// ---------------------------------------------------------------------------------------

// TestLoadConcurrentUpdates: 8 writers each make 50 read-modify-write increments of a
// counter annotation on one Flunder with Update (resourceVersion precondition). Every
// Update succeeds or answers 409 Conflict; the final counter is the number of successful
// updates and every value 1..400 was written exactly once (no lost update). The first
// round is synchronised so that all writers update from the same resourceVersion, which
// makes at least 7 conflicts certain.
func TestLoadConcurrentUpdates(t *testing.T) {
	const writers, perWriter, ns, name = 8, 50, "load-updates", "counter"
	e := loadStart(t)
	ctx := context.Background()
	if r := e.create(ctx, ns, loadFlunderJSON(ns, name, map[string]string{loadCounterKey: "0"})); r.code != http.StatusCreated {
		t.Fatalf("creating the counter object: %s", r)
	}
	client := e.dyn.Resource(loadFlunderGVR).Namespace(ns)

	var conflicts, successes atomic.Int64
	var mu sync.Mutex
	var failures []string
	written := map[int64]int{} // counter value → how many successful updates wrote it
	fail := func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		if len(failures) < 10 {
			failures = append(failures, msg)
		}
	}
	var firstRead sync.WaitGroup
	firstRead.Add(writers)
	start := time.Now()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			first := true
			for done := 0; done < perWriter; {
				obj, err := client.Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					fail(fmt.Sprintf("writer %d: get: %v", w, err))
					if first {
						firstRead.Done()
					}
					return
				}
				if first {
					firstRead.Done()
					firstRead.Wait() // everyone holds the same resourceVersion now
					first = false
				}
				n, err := strconv.ParseInt(obj.GetAnnotations()[loadCounterKey], 10, 64)
				if err != nil {
					fail(fmt.Sprintf("writer %d: annotation %s=%q: %v", w, loadCounterKey, obj.GetAnnotations()[loadCounterKey], err))
					return
				}
				ann := obj.GetAnnotations()
				ann[loadCounterKey] = strconv.FormatInt(n+1, 10)
				obj.SetAnnotations(ann)
				_, err = client.Update(ctx, obj, metav1.UpdateOptions{})
				var status apierrors.APIStatus
				switch {
				case err == nil:
					done++
					successes.Add(1)
					mu.Lock()
					written[n+1]++
					mu.Unlock()
				case apierrors.IsConflict(err) && errors.As(err, &status) && status.Status().Code == http.StatusConflict:
					conflicts.Add(1)
				default:
					fail(fmt.Sprintf("writer %d: update from resourceVersion %s: %v (%#v)", w, obj.GetResourceVersion(), err, err))
					return
				}
			}
		}()
	}
	wg.Wait()
	took := time.Since(start)
	t.Logf("%d successful updates and %d 409 Conflicts from %d writers in %s",
		successes.Load(), conflicts.Load(), writers, took.Round(time.Millisecond))
	if len(failures) > 0 {
		t.Fatalf("updates failed with something other than 409 Conflict:\n%s", strings.Join(failures, "\n"))
	}
	if successes.Load() != writers*perWriter {
		t.Errorf("%d successful updates, want %d", successes.Load(), writers*perWriter)
	}
	if conflicts.Load() < writers-1 {
		t.Errorf("%d 409 Conflicts, want at least %d: all writers updated from the same resourceVersion in the first round, only one may win",
			conflicts.Load(), writers-1)
	}
	var bad []string
	for v := int64(1); v <= writers*perWriter; v++ {
		if written[v] != 1 {
			bad = append(bad, fmt.Sprintf("%d written %d times", v, written[v]))
		}
	}
	if len(written) != writers*perWriter || len(bad) > 0 {
		t.Errorf("successful updates wrote %d distinct counter values, want each of 1..%d exactly once (a lost update writes a value twice): %v",
			len(written), writers*perWriter, loadFirst(bad))
	}
	obj, err := client.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := obj.GetAnnotations()[loadCounterKey]; got != strconv.FormatInt(successes.Load(), 10) {
		t.Errorf("final counter %s=%q, want %d (the number of successful updates)", loadCounterKey, got, successes.Load())
	}
	if obj.GetGeneration() != 1 {
		// Annotations are metadata: the generation must not move.
		t.Errorf("metadata.generation is %d after annotation-only updates, want 1", obj.GetGeneration())
	}
	e.stop(t)
}

// ---------------------------------------------------------------------------------------

// TestLoadKillDuringWrites: writers create Flunders continuously; the server gets SIGKILL
// while requests are in flight; after a restart on the same data dir (same port, so the
// kubeconfig written before the kill still works: the CA lives in the data dir) every
// create that was acknowledged with 201 is there, and nothing that was never sent.
func TestLoadKillDuringWrites(t *testing.T) {
	const writers, ns, killAfter = 8, "load-kill", 400
	e := loadStart(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	var (
		mu         sync.Mutex
		acked      []string // answered 201
		attempted  = map[string]bool{}
		inFlight   int      // started before the kill, failed without an answer
		before     []string // errors before the kill: the test fails
		killedAt   time.Time
		killed     atomic.Bool
		ackedCount atomic.Int64
	)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				if killed.Load() || ctx.Err() != nil {
					return
				}
				name := fmt.Sprintf("kill-w%d-%06d", w, i)
				mu.Lock()
				attempted[name] = true
				mu.Unlock()
				sent := time.Now()
				r := e.create(ctx, ns, loadFlunderJSON(ns, name, nil))
				mu.Lock()
				switch {
				case r.code == http.StatusCreated:
					acked = append(acked, name)
					ackedCount.Add(1)
				case killed.Load():
					if sent.Before(killedAt) {
						inFlight++
					}
				default:
					if len(before) < 10 {
						before = append(before, fmt.Sprintf("create %s: %s", name, r))
					}
				}
				mu.Unlock()
				if r.code != http.StatusCreated && killed.Load() {
					return
				}
			}
		}()
	}
	if err := poll(60*time.Second, func() error {
		if n := ackedCount.Load(); n < killAfter {
			return fmt.Errorf("%d creates acknowledged", n)
		}
		return nil
	}); err != nil {
		cancel()
		wg.Wait()
		t.Fatalf("waiting for %d acknowledged creates: %v; errors: %v\n%s", killAfter, err, before, e.srv.proc.Describe())
	}
	// The server rewrites its kubeconfig on start; clients after the restart use this copy.
	oldKubeconfig := writeFile(t, filepath.Join(e.work, "kubeconfig-before-kill"), readFile(t, e.kubeconfig))
	mu.Lock()
	killedAt = time.Now()
	killed.Store(true)
	mu.Unlock()
	if _, err := e.srv.proc.Signal(syscall.SIGKILL, 10*time.Second); err != nil {
		t.Fatalf("SIGKILL: the server did not die within 10s: %v", err)
	}
	if ws, ok := e.srv.proc.State().Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the server did not die of SIGKILL: %v", e.srv.proc.State())
	}
	wg.Wait()
	t.Logf("SIGKILL after %d acknowledged creates; %d acknowledged in all, %d requests in flight failed, %d attempted",
		killAfter, len(acked), inFlight, len(attempted))
	if len(before) > 0 {
		t.Errorf("creates failed before the kill:\n%s", strings.Join(before, "\n"))
	}
	if inFlight == 0 {
		t.Errorf("no create was in flight when the server was killed; the test did not test what it should")
	}

	start := time.Now()
	e.srv = startServer(t, e.srv.bin, e.work, e.srv.port, e.dataDir, e.kubeconfig, filepath.Join(e.work, "server-restarted.log"))
	t.Logf("restarted after SIGKILL in %s", time.Since(start).Round(time.Millisecond))
	e.connect(t, oldKubeconfig) // the CA and the admin certificate survive in the data dir
	got, _ := e.listNames(t, ns, 1000)
	present := map[string]bool{}
	for _, n := range got {
		present[n] = true
		if !attempted[n] {
			t.Errorf("after restart the object %s exists, but no writer ever sent it", n)
		}
	}
	var lost []string
	for _, n := range acked {
		if !present[n] {
			lost = append(lost, n)
		}
	}
	t.Logf("after restart: %d objects present, %d acknowledged, %d created without an acknowledgement",
		len(got), len(acked), len(got)-len(acked)+len(lost))
	if len(lost) > 0 {
		t.Errorf("%d of %d acknowledged creates are missing after SIGKILL and restart: %v", len(lost), len(acked), loadFirst(lost))
	}
	// The restarted server still takes writes.
	if r := e.create(context.Background(), ns, loadFlunderJSON(ns, "after-restart", nil)); r.code != http.StatusCreated {
		t.Errorf("create after restart: %s", r)
	}
	e.stop(t)
}

// ---------------------------------------------------------------------------------------

// TestLoadDataDirInUse: a second server on a data dir in use exits non-zero within seconds
// and says which data dir is in use; the first one keeps serving, with its data intact.
func TestLoadDataDirInUse(t *testing.T) {
	const ns = "load-datadir"
	e := loadStart(t)
	ctx := context.Background()
	if r := e.create(ctx, ns, loadFlunderJSON(ns, "before", nil)); r.code != http.StatusCreated {
		t.Fatalf("create: %s", r)
	}
	client := e.dyn.Resource(loadFlunderGVR).Namespace(ns)
	orig, err := client.Get(ctx, "before", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	kubeconfigBefore := readFile(t, e.kubeconfig)

	second := filepath.Join(e.work, "second-kubeconfig")
	r := runCmd(cmdOpts{Dir: e.work, Timeout: 20 * time.Second}, e.srv.bin,
		"--secure-port="+strconv.Itoa(freePort(t)), "--data-dir="+e.dataDir, "--write-kubeconfig="+second)
	t.Logf("second server on the same data dir: exit %d after %s; stderr: %s", r.ExitCode, r.Took.Round(time.Millisecond), strings.TrimSpace(r.Stderr))
	switch {
	case r.ExitCode == -1:
		t.Errorf("a second server on a data dir in use should exit at once; it was still running after 20s:\n%s", r)
	case r.ExitCode == 0:
		t.Errorf("a second server on a data dir in use exited 0, want non-zero:\n%s", r)
	case r.Took > 5*time.Second:
		t.Errorf("a second server on a data dir in use took %s to fail, want a few seconds at most:\n%s", r.Took, r)
	}
	wantMsg := "--data-dir " + e.dataDir + " is in use by another server"
	if !strings.Contains(r.Stderr, wantMsg) || !strings.Contains(r.Stderr, filepath.Join(e.dataDir, "lock")) {
		t.Errorf("stderr of the second server should say %q and name the lock file %s:\n%s", wantMsg, filepath.Join(e.dataDir, "lock"), r)
	}
	if _, err := os.Stat(second); !os.IsNotExist(err) {
		t.Errorf("the failed second server wrote its kubeconfig %s (stat: %v)", second, err)
	}
	if got := readFile(t, e.kubeconfig); got != kubeconfigBefore {
		t.Errorf("the first server's kubeconfig changed while the second server tried to start")
	}

	// The first server still serves, with its data.
	if e.srv.proc.Exited() {
		t.Fatalf("the first server exited:\n%s", e.srv.proc.Describe())
	}
	if status, body, err := restGet(restConfig(t, e.kubeconfig), "/readyz"); err != nil || status != http.StatusOK {
		t.Errorf("GET /readyz on the first server: %d %q %v", status, body, err)
	}
	got, err := client.Get(ctx, "before", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get on the first server after the second failed: %v", err)
	}
	if got.GetUID() != orig.GetUID() || got.GetResourceVersion() != orig.GetResourceVersion() {
		t.Errorf("object changed: uid %s rv %s, was uid %s rv %s", got.GetUID(), got.GetResourceVersion(), orig.GetUID(), orig.GetResourceVersion())
	}
	if r := e.create(ctx, ns, loadFlunderJSON(ns, "after", nil)); r.code != http.StatusCreated {
		t.Errorf("create on the first server after the second failed: %s", r)
	}
	if names, _ := e.listNames(t, ns, 0); !slices.Equal(names, []string{"after", "before"}) {
		t.Errorf("flunders in %s: %v, want [after before]", ns, names)
	}
	e.stop(t)
}

// ---------------------------------------------------------------------------------------

// TestLoadMalformedRequests: bad bodies get the right 4xx as a metav1.Status naming the
// problem, create nothing, and the server keeps serving.
func TestLoadMalformedRequests(t *testing.T) {
	const ns = "load-malformed"
	const limit = 3 * 1024 * 1024 // k8s.io/apiserver's default MaxRequestBodyBytes (server.NewConfig)
	e := loadStart(t)
	ctx := context.Background()

	// flunder is a valid Flunder as a map, edited by each case.
	flunder := func(name string, edit func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(loadFlunderJSON(ns, name, nil), &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		data, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	truncated := loadFlunderJSON(ns, "bad-json", nil)
	truncated = truncated[:len(truncated)-10]
	oversize := flunder("too-large", func(m map[string]any) {
		m["spec"].(map[string]any)["reference"] = strings.Repeat("x", limit+1024)
	})

	cases := []struct {
		name, object string // object: the name in the body, which must not get created
		body         []byte
		params       []string
		code         int
		reason       metav1.StatusReason
		msg          []string // the message must contain each
	}{{
		name: "invalid JSON", object: "bad-json", body: truncated,
		code: http.StatusBadRequest, reason: metav1.StatusReasonBadRequest,
		msg: []string{"json", "unexpected end of JSON input"},
	}, {
		name: "wrong kind", object: "wrong-kind",
		body: flunder("wrong-kind", func(m map[string]any) { m["kind"] = "Fischer" }),
		code: http.StatusBadRequest, reason: metav1.StatusReasonBadRequest,
		msg: []string{"Fischer", "cannot be handled as a Flunder"},
	}, {
		name: "unknown kind", object: "unknown-kind",
		body: flunder("unknown-kind", func(m map[string]any) { m["kind"] = "Blunder" }),
		code: http.StatusBadRequest, reason: metav1.StatusReasonBadRequest,
		msg: []string{`no kind "Blunder" is registered`},
	}, {
		name: "wrong version", object: "wrong-version",
		body: flunder("wrong-version", func(m map[string]any) { m["apiVersion"] = wardleGroup + "/v9" }),
		code: http.StatusBadRequest, reason: metav1.StatusReasonBadRequest,
		msg: []string{wardleGroup + "/v9", "cannot be handled as a Flunder"},
	}, {
		name: "wrong group", object: "wrong-group",
		body: flunder("wrong-group", func(m map[string]any) { m["apiVersion"] = "apps/v1" }),
		code: http.StatusBadRequest, reason: metav1.StatusReasonBadRequest,
		msg: []string{"apps/v1", "cannot be handled as a Flunder"},
	}, {
		name: "body over the limit", object: "too-large", body: oversize,
		code: http.StatusRequestEntityTooLarge, reason: metav1.StatusReasonRequestEntityTooLarge,
		msg: []string{"limit is " + strconv.Itoa(limit)},
	}, {
		name: "unknown field, strict", object: "unknown-field",
		body:   flunder("unknown-field", func(m map[string]any) { m["spec"].(map[string]any)["bogusField"] = 1 }),
		params: []string{"fieldValidation", "Strict"},
		code:   http.StatusBadRequest, reason: metav1.StatusReasonBadRequest,
		msg: []string{`unknown field "spec.bogusField"`},
	}, {
		name: "invalid object", object: "refers-to-itself",
		body: flunder("refers-to-itself", func(m map[string]any) { m["spec"].(map[string]any)["reference"] = "refers-to-itself" }),
		code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid,
		msg: []string{"spec.reference", "cannot refer to itself"},
	}}
	for _, c := range cases {
		r := e.create(ctx, ns, c.body, c.params...)
		what := fmt.Sprintf("%s (POST %d bytes)", c.name, len(c.body))
		if r.code != c.code {
			t.Errorf("%s: HTTP %d, want %d: %s", what, r.code, c.code, r)
			continue
		}
		st := loadStatus(t, what, r)
		if st.Reason != c.reason {
			t.Errorf("%s: Status reason %q, want %q: %s", what, st.Reason, c.reason, r)
		}
		for _, m := range c.msg {
			if !strings.Contains(st.Message, m) {
				t.Errorf("%s: Status message %q does not contain %q", what, st.Message, m)
			}
		}
		t.Logf("%s: %d %s: %s", c.name, st.Code, st.Reason, st.Message)
		_, err := e.dyn.Resource(loadFlunderGVR).Namespace(ns).Get(ctx, c.object, metav1.GetOptions{})
		if !apierrors.IsNotFound(err) {
			t.Errorf("%s: after the rejected create, get %s/%s should be NotFound, got %v", what, ns, c.object, err)
		}
	}

	// Without fieldValidation=Strict (the default is Warn) the unknown field is dropped
	// with a warning.
	e.warnings.take()
	if r := e.create(ctx, ns, flunder("lenient", func(m map[string]any) { m["spec"].(map[string]any)["bogusField"] = 1 })); r.code != http.StatusCreated {
		t.Errorf("create with an unknown field without fieldValidation=Strict: %s", r)
	}
	if w := e.warnings.take(); !slices.ContainsFunc(w, func(s string) bool { return strings.Contains(s, `unknown field "spec.bogusField"`) }) {
		t.Errorf("create with an unknown field without fieldValidation=Strict: want a warning naming spec.bogusField, got %q", w)
	}

	// Still serving.
	if r := e.create(ctx, ns, loadFlunderJSON(ns, "valid", nil)); r.code != http.StatusCreated {
		t.Errorf("a valid create after the malformed ones: %s", r)
	}
	if e.srv.proc.Exited() {
		t.Fatalf("the server exited:\n%s", e.srv.proc.Describe())
	}
	if status, body, err := restGet(restConfig(t, e.kubeconfig), "/readyz"); err != nil || status != http.StatusOK || strings.TrimSpace(body) != "ok" {
		t.Errorf("GET /readyz after the malformed requests: %d %q %v", status, body, err)
	}
	if names, _ := e.listNames(t, ns, 0); !slices.Equal(names, []string{"lenient", "valid"}) {
		t.Errorf("flunders in %s: %v, want [lenient valid]", ns, names)
	}
	e.stop(t)
}
