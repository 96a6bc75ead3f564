package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
)

// The envelope TestParallelListsUnderMemoryLimit holds the server to: listObjects Flunders of
// about listObjectBytes each, served in a memory cgroup of listMemoryLimit, while listClients
// unpaged lists of all of them run at once.
const (
	listObjects     = 10000
	listObjectBytes = 1024
	listMemoryLimit = 256 << 20
	listClients     = 32
)

// TestParallelListsUnderMemoryLimit: examples/wardle's server, in a memory cgroup of 256 MiB
// holding 10^4 Flunders of about 1 KiB, answers 32 unpaged lists of every Flunder sent at once
// (JSON and protobuf, in both versions) with 200 or with 429 and Retry-After, is never killed
// for memory, and serves normally afterwards.
func TestParallelListsUnderMemoryLimit(t *testing.T) {
	bin := loadServerBin(t)
	cg := newMemoryCgroup(t, listMemoryLimit)
	work := t.TempDir()
	kubeconfig := filepath.Join(work, "kubeconfig")
	// Storage counts objects every 5 s instead of every minute, so that the lists are budgeted
	// from the count of what was just created, not from the live heap used without one.
	s := startServer(t, cg.wrap(t, bin), work, freePort(t), filepath.Join(work, "data"), kubeconfig, filepath.Join(work, "server.log"), "--etcd-count-metric-poll-period=5s")
	cfg := restConfig(t, kubeconfig)
	host := strings.TrimSuffix(cfg.Host, "/")
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	fillFlunders(t, hc, host, listObjects, listObjectBytes)
	t.Logf("%d Flunders created in %s; cgroup at %s", listObjects, time.Since(start).Round(time.Millisecond), cg.Usage())
	var size string
	if err := poll(30*time.Second, func() error {
		m := metricsText(t, hc, host)
		if got := metricValue(m, `apiserver_resource_objects{group="`+wardleGroup+`",resource="flunders"}`); got != fmt.Sprint(listObjects) {
			return fmt.Errorf("storage counts %q Flunders, want %d", got, listObjects)
		}
		size = metricValue(m, `apiserver_resource_size_estimate_bytes{group="`+wardleGroup+`",resource="flunders"}`)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	t.Logf("storage counts %d Flunders of %s bytes in all", listObjects, size)

	type outcome struct {
		kind       string
		code       int
		retryAfter string
		items      int
		message    string
		err        error
		took       time.Duration
	}
	kinds := []struct{ version, accept string }{
		{"v1alpha1", "application/json"},
		{"v1beta1", "application/json"},
		{"v1alpha1", protobufContent},
		{"v1beta1", protobufContent},
	}
	outcomes := make([]outcome, listClients)
	var wg sync.WaitGroup
	gate := make(chan struct{})
	start = time.Now()
	for i := range outcomes {
		k := kinds[i%len(kinds)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			o := outcome{kind: k.version + " " + k.accept}
			began := time.Now()
			o.code, o.retryAfter, o.items, o.message, o.err = listEverything(hc, host, k.version, k.accept)
			o.took = time.Since(began)
			outcomes[i] = o
		}()
	}
	close(gate)
	wg.Wait()
	t.Logf("%d parallel unpaged lists done in %s; cgroup %s", listClients, time.Since(start).Round(time.Millisecond), cg.Usage())

	if s.proc.Exited() {
		t.Fatalf("the server died during the lists (cgroup %s, %d killed by the kernel for memory):\n%s", cg.Usage(), cg.oomKills(t), s.proc.Describe())
	}
	// A list turned away says what it was budgeted: twice the Flunders' size in storage, from
	// the object count tracker the server hands priority and fairness's list work estimator.
	stored, err := strconv.ParseFloat(size, 64)
	if err != nil {
		t.Fatalf("apiserver_resource_size_estimate_bytes of Flunders: %q", size)
	}
	wantBudget := int64(2*stored) >> 20
	budgeted := regexp.MustCompile(`budgeted (\d+) MiB`)
	served, turnedAway := 0, 0
	for i, o := range outcomes {
		t.Logf("list %2d (%s): HTTP %d in %s, %d items, Retry-After %q, %v %s", i, o.kind, o.code, o.took.Round(time.Millisecond), o.items, o.retryAfter, o.err, o.message)
		switch {
		case o.code == http.StatusOK && o.err == nil && o.items == listObjects:
			served++
		case o.code == http.StatusTooManyRequests && o.retryAfter != "":
			turnedAway++
			if strings.Contains(o.kind, "json") {
				var n int64 = -2
				if m := budgeted.FindStringSubmatch(o.message); m != nil {
					n, _ = strconv.ParseInt(m[1], 10, 64)
				}
				if n < wantBudget-1 || n > wantBudget+1 {
					t.Errorf("list %d turned away with %q; want it budgeted about %d MiB, twice the Flunders' %s bytes in storage", i, o.message, wantBudget, size)
				}
			}
		default:
			t.Errorf("list %d (%s): want 200 with %d items, or 429 with Retry-After; got HTTP %d, %d items, Retry-After %q, %v", i, o.kind, listObjects, o.code, o.items, o.retryAfter, o.err)
		}
	}
	t.Logf("%d lists served, %d turned away", served, turnedAway)
	if served == 0 {
		t.Errorf("none of the %d lists was served", listClients)
	}
	if n := cg.oomKills(t); n > 0 {
		t.Errorf("the kernel killed %d processes in the server's cgroup for memory", n)
	}

	// Afterwards the server is ready and serves a list of everything.
	if code, _, items, _, err := listEverything(hc, host, "v1alpha1", "application/json"); code != http.StatusOK || items != listObjects || err != nil {
		t.Errorf("a list after the burst: HTTP %d, %d items, %v; want 200 with %d", code, items, err, listObjects)
	}
	resp, err := hc.Get(host + "/readyz")
	if err != nil {
		t.Fatalf("GET /readyz after the burst: %v\n%s", err, s.proc.Describe())
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /readyz after the burst: HTTP %d", resp.StatusCode)
	}
}

// fillFlunders creates n Flunders of about size bytes each (as JSON), spread over ten
// namespaces, with 16 clients at once.
func fillFlunders(t *testing.T, hc *http.Client, host string, n, size int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var next atomic.Int64
	errs := make(chan error, 16)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n || ctx.Err() != nil {
					return
				}
				ns := fmt.Sprintf("fill-%d", i%10)
				// Padding in an annotation brings the object to about size bytes.
				pad := size - len(loadFlunderJSON(ns, fmt.Sprintf("flunder-%05d", i), nil)) - 40
				body := loadFlunderJSON(ns, fmt.Sprintf("flunder-%05d", i), map[string]string{"e2e.apigen.dev/padding": strings.Repeat("x", max(pad, 0))})
				req, err := http.NewRequestWithContext(ctx, http.MethodPost, host+"/apis/"+wardleGroup+"/v1alpha1/namespaces/"+ns+"/flunders", bytes.NewReader(body))
				if err != nil {
					errs <- err
					return
				}
				req.Header.Set("Content-Type", "application/json")
				resp, err := hc.Do(req)
				if err != nil {
					errs <- err
					return
				}
				msg, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusCreated {
					errs <- fmt.Errorf("creating Flunder %d: HTTP %d: %s", i, resp.StatusCode, msg)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// listEverything lists every Flunder in every namespace in one request, unpaged, and returns the
// status, the Retry-After header, the number of items the body holds and, for an error in
// JSON, its Status's message.
func listEverything(hc *http.Client, host, version, accept string) (code int, retryAfter string, items int, message string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, host+"/apis/"+wardleGroup+"/"+version+"/flunders", nil)
	if err != nil {
		return 0, "", 0, "", err
	}
	req.Header.Set("Accept", accept)
	resp, err := hc.Do(req)
	if err != nil {
		return 0, "", 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, "", 0, "", err
	}
	code, retryAfter = resp.StatusCode, resp.Header.Get("Retry-After")
	if code != http.StatusOK {
		var status metav1.Status
		if accept != protobufContent && json.Unmarshal(body, &status) == nil {
			return code, retryAfter, 0, status.Message, nil
		}
		return code, retryAfter, 0, "", nil
	}
	var list metav1.PartialObjectMetadataList
	if accept == protobufContent {
		// The envelope is runtime.Unknown; a FlunderList's fields 1 (metadata) and 2 (items,
		// each with its metadata in field 1) are those of PartialObjectMetadataList.
		var u runtime.Unknown
		if !bytes.HasPrefix(body, []byte("k8s\x00")) {
			return code, retryAfter, 0, "", fmt.Errorf("not protobuf: %.80q", body)
		}
		if err := u.Unmarshal(body[4:]); err != nil {
			return code, retryAfter, 0, "", err
		}
		if err := list.Unmarshal(u.Raw); err != nil {
			return code, retryAfter, 0, "", err
		}
	} else if err := json.Unmarshal(body, &list); err != nil {
		return code, retryAfter, 0, "", err
	}
	return code, retryAfter, len(list.Items), "", nil
}

// metricsText is the server's /metrics.
func metricsText(t *testing.T, hc *http.Client, host string) string {
	t.Helper()
	resp, err := hc.Get(host + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: HTTP %d, %v", resp.StatusCode, err)
	}
	return string(body)
}

// metricValue is the value of the sample named series (name and labels as exposed), or "".
func metricValue(text, series string) string {
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			return v
		}
	}
	return ""
}
