package server

import (
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/storage"
	flowcontrolrequest "k8s.io/apiserver/pkg/util/flowcontrol/request"
)

func TestListBudgetAdmit(t *testing.T) {
	const mib = 1 << 20
	counted := func(string) (storage.Stats, error) {
		return storage.Stats{ObjectCount: 10000, EstimatedAverageObjectSizeBytes: 1000}, nil // 10 MB in storage
	}
	uncounted := func(string) (storage.Stats, error) {
		return storage.Stats{}, flowcontrolrequest.ObjectCountNotFoundErr
	}
	b := &listBudget{limit: func() int64 { return 100 * mib }, live: func() int64 { return 40 * mib }, stats: counted}
	if got, want := b.cost("flunders.wardle.example.com", 40*mib), int64(10000*1000*listObjectCost); got != want {
		t.Errorf("cost from a count of 10000 objects of 1000 bytes: %d, want %d", got, want)
	}
	// 40 MiB live and 100 MiB of limit leave room for three lists of 20 MB.
	var costs []int64
	for {
		cost, ok := b.admit("flunders.wardle.example.com")
		if !ok {
			break
		}
		costs = append(costs, cost)
	}
	if len(costs) != 3 {
		t.Fatalf("admitted %d lists of 20 MB beside 40 MiB live under 100 MiB, want 3", len(costs))
	}
	b.release(costs[0])
	if _, ok := b.admit("flunders.wardle.example.com"); !ok {
		t.Error("a list is turned away after one of the lists served has ended")
	}

	// Without a count a list costs the live heap: one alone is always served, a second does
	// not fit beside it.
	b = &listBudget{limit: func() int64 { return 100 * mib }, live: func() int64 { return 60 * mib }, stats: uncounted}
	cost, ok := b.admit("flunders.wardle.example.com")
	if !ok || cost != 60*mib {
		t.Fatalf("the first list without a count: admitted %v at %d, want admitted at the live heap", ok, cost)
	}
	if _, ok := b.admit("flunders.wardle.example.com"); ok {
		t.Error("a second list of a 60 MiB heap fits under 100 MiB")
	}
	b.release(cost)

	// Without a memory limit nothing is counted or turned away.
	b = &listBudget{limit: func() int64 { return math.MaxInt64 }, live: func() int64 { return 60 * mib }, stats: uncounted}
	for range 100 {
		if _, ok := b.admit("flunders.wardle.example.com"); !ok {
			t.Fatal("a list turned away without a memory limit")
		}
	}
}

func TestListBudgetHandler(t *testing.T) {
	gv := schema.GroupVersion{Group: "wardle.example.com", Version: "v1alpha1"}
	scheme := runtime.NewScheme()
	metav1.AddToGroupVersion(scheme, gv)
	codecs := serializer.NewCodecFactory(scheme)
	b := &listBudget{
		limit: func() int64 { return 100 },
		live:  func() int64 { return 60 },
		stats: func(string) (storage.Stats, error) { return storage.Stats{}, flowcontrolrequest.ObjectCountNotFoundErr },
	}
	release := make(chan struct{})
	served := make(chan struct{}, 10)
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served <- struct{}{}
		if r.URL.Query().Get("hold") != "" {
			<-release
		}
	})
	chain := b.handlerChain(codecs, func(h http.Handler, _ *server.Config) http.Handler { return h })(api, nil)
	do := func(verb, url string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, url, nil)
		r = r.WithContext(request.WithRequestInfo(r.Context(), &request.RequestInfo{
			IsResourceRequest: true, Verb: verb, APIGroup: gv.Group, APIVersion: gv.Version, Resource: "flunders",
		}))
		w := httptest.NewRecorder()
		chain.ServeHTTP(w, r)
		return w
	}

	// One unpaged list is being served; a second is turned away, and what is not an
	// unpaged list passes.
	done := make(chan struct{})
	go func() { defer close(done); do("list", "/apis/wardle.example.com/v1alpha1/flunders?hold=1") }()
	<-served
	w := do("list", "/apis/wardle.example.com/v1alpha1/flunders")
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "1" {
		t.Errorf("a second unpaged list: HTTP %d, Retry-After %q; want 429 and 1", w.Code, w.Header().Get("Retry-After"))
	}
	var status metav1.Status
	if err := json.Unmarshal(w.Body.Bytes(), &status); err != nil || status.Reason != metav1.StatusReasonTooManyRequests {
		t.Errorf("the 429's body is not a Status with reason TooManyRequests: %v, %s", err, w.Body)
	}
	for _, c := range []struct{ verb, url string }{
		{"list", "/apis/wardle.example.com/v1alpha1/flunders?limit=500"},
		{"watch", "/apis/wardle.example.com/v1alpha1/flunders?watch=1"},
		{"get", "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/a"},
	} {
		if w := do(c.verb, c.url); w.Code != http.StatusOK {
			t.Errorf("%s %s beside an unpaged list: HTTP %d, want it passed", c.verb, c.url, w.Code)
		}
	}
	close(release)
	<-done
	if w := do("list", "/apis/wardle.example.com/v1alpha1/flunders"); w.Code != http.StatusOK {
		t.Errorf("an unpaged list after the first ended: HTTP %d, want it served", w.Code)
	}
}
