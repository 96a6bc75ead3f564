package server

import (
	"fmt"
	"math"
	"net/http"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/storage"
	flowcontrolrequest "k8s.io/apiserver/pkg/util/flowcontrol/request"
	"k8s.io/klog/v2"
)

// listObjectCost is the memory an unpaged list is budgeted per byte its objects take in
// storage: the list's copy of every object, a converted copy when another version is asked
// for, and the encoder's buffers. Measured on examples/wardle, a list of 10^4 Flunders that
// take 14.7 MB in etcd adds about 10 MB to the process's memory while it is served, in JSON
// or protobuf, either version; twice the stored size leaves room for a count that lags
// behind creates (storage counts once a minute, --etcd-count-metric-poll-period).
const listObjectCost = 2

// listRetryAfterSeconds is the Retry-After of a list turned away, as kube-apiserver's
// --max-requests-inflight answers.
const listRetryAfterSeconds = 1

// listBudget turns away unpaged lists with 429 and Retry-After when the memory they would
// take, added to the live heap and to the lists already being served, would pass the Go
// runtime's soft memory limit (set from the container's memory limit, see setMemoryLimit).
// Priority and fairness bounds a list of everything by its seats, not by bytes, and is off
// in local mode: neither keeps parallel lists of a large collection within a memory limit.
// One list is always served, so a collection is never unlistable; paged lists, watches and
// everything else pass.
type listBudget struct {
	limit func() int64                                 // the soft memory limit; math.MaxInt64 for none
	live  func() int64                                 // the heap live after the last collection
	stats func(resource string) (storage.Stats, error) // a resource's object count and size

	mu       sync.Mutex
	reserved int64 // the estimated memory of the lists being served
	inflight int
}

// newListBudget budgets against this process's memory limit and heap, with a resource's
// size taken from the object counts storage keeps for priority and fairness (nil: unknown).
func newListBudget(tracker flowcontrolrequest.StorageObjectCountTracker) *listBudget {
	b := &listBudget{limit: softMemoryLimit, live: liveHeap}
	if tracker != nil {
		b.stats = tracker.Get
	} else {
		b.stats = func(string) (storage.Stats, error) { return storage.Stats{}, flowcontrolrequest.ObjectCountNotFoundErr }
	}
	return b
}

// cost estimates the memory an unpaged list of resource takes while it is served. Without a
// count from storage (none yet, stale, or zero while the count lags behind creates) it is
// the whole live heap, which holds the watch cache of every resource.
func (b *listBudget) cost(resource string, live int64) int64 {
	s, err := b.stats(resource)
	if err != nil || s.ObjectCount <= 0 || s.EstimatedAverageObjectSizeBytes <= 0 {
		return live
	}
	if s.ObjectCount > math.MaxInt64/listObjectCost/s.EstimatedAverageObjectSizeBytes {
		return math.MaxInt64 / 2
	}
	return s.ObjectCount * s.EstimatedAverageObjectSizeBytes * listObjectCost
}

// admit reserves the memory of an unpaged list of resource and returns it, or answers false
// (with the memory it would have reserved) when it does not fit beside the lists being served.
func (b *listBudget) admit(resource string) (int64, bool) {
	limit := b.limit()
	if limit == math.MaxInt64 {
		return 0, true
	}
	live := b.live()
	cost := b.cost(resource, live)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.inflight > 0 && live+b.reserved+cost > limit {
		return cost, false
	}
	b.inflight++
	b.reserved += cost
	return cost, true
}

func (b *listBudget) release(cost int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.inflight--
	b.reserved -= cost
}

// handlerChain puts the budget in front of the API handlers, after authentication and
// authorization, so only a client allowed to list is counted or turned away.
func (b *listBudget) handlerChain(codecs runtime.NegotiatedSerializer, next func(http.Handler, *server.Config) http.Handler) func(http.Handler, *server.Config) http.Handler {
	return func(apiHandler http.Handler, c *server.Config) http.Handler {
		budgeted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			info, ok := request.RequestInfoFrom(r.Context())
			if !ok || !info.IsResourceRequest || info.Verb != "list" || paged(r) {
				apiHandler.ServeHTTP(w, r)
				return
			}
			resource := schema.GroupResource{Group: info.APIGroup, Resource: info.Resource}.String()
			cost, ok := b.admit(resource)
			if !ok {
				klog.V(2).InfoS("Unpaged list turned away: it does not fit in the memory limit beside the lists being served", "resource", resource, "user", userName(r), "budgetBytes", cost)
				err := apierrors.NewTooManyRequests(fmt.Sprintf("an unpaged list of %s is budgeted %d MiB of memory, which does not fit under the server's limit of %d MiB beside the lists being served; retry, or list in pages (limit and continue)", resource, cost>>20, b.limit()>>20), listRetryAfterSeconds)
				responsewriters.ErrorNegotiated(err, codecs, schema.GroupVersion{Group: info.APIGroup, Version: info.APIVersion}, w, r)
				return
			}
			defer b.release(cost)
			apiHandler.ServeHTTP(w, r)
		})
		return next(budgeted, c)
	}
}

// paged reports whether a list asks for a page (limit > 0): its memory is bounded by the page.
func paged(r *http.Request) bool {
	limit, err := strconv.ParseInt(r.URL.Query().Get("limit"), 10, 64)
	return err == nil && limit > 0
}

func userName(r *http.Request) string {
	if u, ok := request.UserFrom(r.Context()); ok {
		return u.GetName()
	}
	return ""
}

// softMemoryLimit is the Go runtime's soft memory limit (math.MaxInt64 when there is none).
func softMemoryLimit() int64 { return debug.SetMemoryLimit(-1) }

// liveHeap is the heap the last garbage collection found live.
func liveHeap() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}
