// Command serverload-client is the client side of serverload's -protobuf
// comparison: one client-go operation on examples/wardle's Flunder, with the
// project's own Go types, in one encoding, run in its own process so that its
// CPU is the client's alone. serverload copies it into a copy of the project
// (cmd/serverload-client) and builds it there; it is not part of the project.
//
// The same code serves every side: a REST client for group -group (the
// aggregated wardle.example.com or the CRD's crd.wardle.example.com, the same
// Flunder type registered under it) asking for -content-type, and:
//
//	-op sync    a shared informer of -namespace until it has synced (client-go's
//	            defaults: a watch-list where the WatchListClient gate is on)
//	-op get     -count gets of random objects f-0 … f-<objects-1>, -workers at once
//	-op list    -count lists of -limit objects, -workers at once
//	-op watch   -watchers watches of -namespace (empty), then -count creates by
//	            -workers at full speed; each ADDED event timed from its create's send
//
// It prints one JSON object: what it did, how long it took, the latencies and
// the CPU (user+sys, from getrusage) the process used during the operation.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/flowcontrol"

	wardlev1alpha1 "example.com/wardle/pkg/apis/wardle/v1alpha1"
)

type result struct {
	Op          string
	ContentType string
	Group       string
	OK, Errors  int
	Items       int    `json:",omitempty"`
	Missing     int    `json:",omitempty"`
	WatchList   bool   `json:",omitempty"`
	Wall        int64  // ns
	CPU         int64  // ns, user+sys of this process during the operation
	P50, P99    int64  // ns
	FirstError  string `json:",omitempty"`
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("serverload-client: ")
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the server to talk to")
	group := flag.String("group", wardlev1alpha1.GroupName, "API group serving Flunder v1alpha1")
	contentType := flag.String("content-type", "json", "json or protobuf")
	op := flag.String("op", "sync", "sync, get, list or watch")
	ns := flag.String("namespace", "default", "namespace")
	count := flag.Int("count", 1000, "gets, lists or creates")
	objects := flag.Int("objects", 1000, "with -op get: objects f-0 … f-<objects-1> to get from")
	workers := flag.Int("workers", 4, "concurrent workers (get, list; creates of watch)")
	watchers := flag.Int("watchers", 50, "with -op watch: watchers")
	limit := flag.Int64("limit", 500, "with -op list: objects per list")
	pad := flag.String("pad", "", "with -op watch: an annotation every created object carries")
	timeout := flag.Duration("timeout", 5*time.Minute, "time limit of the operation")
	flag.Parse()

	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		log.Fatal(err)
	}
	gv := schema.GroupVersion{Group: *group, Version: "v1alpha1"}
	scheme := runtime.NewScheme()
	scheme.AddKnownTypes(gv, &wardlev1alpha1.Flunder{}, &wardlev1alpha1.FlunderList{})
	metav1.AddToGroupVersion(scheme, gv)
	cfg.APIPath = "/apis"
	cfg.GroupVersion = &gv
	cfg.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	switch *contentType {
	case "json":
		cfg.ContentType = runtime.ContentTypeJSON
	case "protobuf":
		cfg.ContentType = runtime.ContentTypeProtobuf
	default:
		log.Fatalf("-content-type %q: want json or protobuf", *contentType)
	}
	cfg.AcceptContentTypes = cfg.ContentType
	cfg.RateLimiter = flowcontrol.NewFakeAlwaysRateLimiter()
	cfg.UserAgent = "serverload-client"
	cfg.WarningHandler = rest.NoWarnings{}
	rc, err := rest.RESTClientFor(cfg)
	if err != nil {
		log.Fatal(err)
	}
	pc := runtime.NewParameterCodec(scheme)
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()

	r := &result{Op: *op, ContentType: cfg.ContentType, Group: *group}
	var lat []time.Duration
	var mu sync.Mutex
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if r.Errors++; r.FirstError == "" {
			r.FirstError = err.Error()
		}
	}
	cpu0, begin := cpuTime(), time.Now()
	switch *op {
	case "sync":
		r.WatchList = clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient)
		lw := &cache.ListWatch{
			ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
				return rc.Get().Namespace(*ns).Resource("flunders").VersionedParams(&opts, pc).Do(ctx).Get()
			},
			WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
				opts.Watch = true
				return rc.Get().Namespace(*ns).Resource("flunders").VersionedParams(&opts, pc).Watch(ctx)
			},
		}
		inf := cache.NewSharedIndexInformer(cache.ToListWatcherWithWatchListSemantics(lw, rc), &wardlev1alpha1.Flunder{}, 0,
			cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
		go inf.RunWithContext(ctx)
		// Polled every 5 ms (cache.WaitForCacheSync polls every 100 ms).
		for !inf.HasSynced() && ctx.Err() == nil {
			time.Sleep(5 * time.Millisecond)
		}
		if ctx.Err() != nil {
			fail(fmt.Errorf("not synced after %v", *timeout))
		} else {
			r.OK, r.Items = 1, len(inf.GetStore().ListKeys())
		}
	case "get":
		lat = each(ctx, *workers, *count, func(ctx context.Context, k int) error {
			var f wardlev1alpha1.Flunder
			return rc.Get().Namespace(*ns).Resource("flunders").Name(fmt.Sprintf("f-%d", rand.IntN(*objects))).Do(ctx).Into(&f)
		}, fail)
	case "list":
		lat = each(ctx, *workers, *count, func(ctx context.Context, k int) error {
			var l wardlev1alpha1.FlunderList
			if err := rc.Get().Namespace(*ns).Resource("flunders").VersionedParams(&metav1.ListOptions{Limit: *limit}, pc).Do(ctx).Into(&l); err != nil {
				return err
			}
			if int64(len(l.Items)) != *limit {
				return fmt.Errorf("list: %d items, want %d", len(l.Items), *limit)
			}
			return nil
		}, fail)
	case "watch":
		lat = fanOut(ctx, rc, pc, *ns, *watchers, *count, *workers, *pad, r, fail)
	default:
		log.Fatalf("-op %q: want sync, get, list or watch", *op)
	}
	r.Wall, r.CPU = int64(time.Since(begin)), int64(cpuTime()-cpu0)
	if *op != "sync" {
		r.OK = len(lat)
		slices.Sort(lat)
		r.P50, r.P99 = int64(percentile(lat, 0.50)), int64(percentile(lat, 0.99))
	} else {
		r.P50, r.P99 = r.Wall, r.Wall
	}
	if err := json.NewEncoder(os.Stdout).Encode(r); err != nil {
		log.Fatal(err)
	}
}

// each runs fn count times from workers workers and returns the latencies of
// the calls that succeeded.
func each(ctx context.Context, workers, count int, fn func(ctx context.Context, k int) error, fail func(error)) []time.Duration {
	var next atomic.Int64
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for ctx.Err() == nil {
				k := int(next.Add(1)) - 1
				if k >= count {
					return
				}
				at := time.Now()
				if err := fn(ctx, k); err != nil {
					fail(err)
					continue
				}
				d := time.Since(at)
				mu.Lock()
				lat = append(lat, d)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return lat
}

// fanOut opens watchers watches of the empty namespace ns, creates count
// objects from workers workers as fast as the server takes them, and returns
// each delivery's latency from its create's send; r.Missing counts the
// deliveries that did not come within 60 s of the last create.
func fanOut(ctx context.Context, rc *rest.RESTClient, pc runtime.ParameterCodec, ns string, watchers, count, workers int, pad string, r *result, fail func(error)) []time.Duration {
	var sent sync.Map // name -> time.Time
	var mu sync.Mutex
	var lat []time.Duration
	var streams []watch.Interface
	defer func() {
		for _, w := range streams {
			w.Stop()
		}
	}()
	for range watchers {
		w, err := rc.Get().Namespace(ns).Resource("flunders").VersionedParams(&metav1.ListOptions{Watch: true, ResourceVersion: "0"}, pc).Watch(ctx)
		if err != nil {
			fail(err)
			return nil
		}
		streams = append(streams, w)
	}
	var got atomic.Int64
	var wg sync.WaitGroup
	for _, w := range streams {
		wg.Go(func() {
			seen := 0
			for ev := range w.ResultChan() {
				if ev.Type != watch.Added {
					continue
				}
				at := time.Now()
				f, ok := ev.Object.(*wardlev1alpha1.Flunder)
				if !ok {
					continue
				}
				if t, ok := sent.Load(f.Name); ok {
					mu.Lock()
					lat = append(lat, at.Sub(t.(time.Time)))
					mu.Unlock()
				}
				got.Add(1)
				if seen++; seen == count {
					return
				}
			}
		})
	}
	labels := map[string]string{"app.kubernetes.io/name": "serverload"}
	var annotations map[string]string
	if pad != "" {
		annotations = map[string]string{"serverload/pad": pad}
	}
	each(ctx, workers, count, func(ctx context.Context, k int) error {
		name := fmt.Sprintf("w-%d", k)
		f := &wardlev1alpha1.Flunder{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels, Annotations: annotations},
			Spec:       wardlev1alpha1.FlunderSpec{Reference: fmt.Sprintf("ref-%d", k)},
		}
		sent.Store(name, time.Now())
		return rc.Post().Namespace(ns).Resource("flunders").Body(f).Do(ctx).Error()
	}, fail)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
	case <-ctx.Done():
	}
	for _, w := range streams {
		w.Stop()
	}
	<-done
	r.Missing = max(watchers*count-int(got.Load()), 0)
	mu.Lock()
	defer mu.Unlock()
	return slices.Clone(lat)
}

func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// cpuTime is the CPU (user+sys, every thread) this process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
