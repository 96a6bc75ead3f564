package e2e

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/apigen-dev/apigen/test/cluster"
)

// routedLatency is TestSQLReplicaWatchLatency through kube-apiserver: examples/wardle's
// manifests applied to a real kube-apiserver started with --enable-aggregator-routing=true,
// the replicas (two, then a third added) on the database at endpoint listed in the Service's
// EndpointSlices, so that kube-apiserver picks a replica for each request. Flunders are
// created one at a time through kube-apiserver while watches opened through it collect them;
// each replica's audit log tells which replica served each create and each watch. It logs
// every delivery's latency, and those across replicas, and checks the latter (checkLatency)
// against the earliest watch on the replica that took the write, which the loop that opens the
// watches makes sure of.
func routedLatency(t *testing.T, bin, dbName, endpoint string) {
	tc := tools(t)
	bins, err := controlPlane()
	if err != nil {
		t.Fatal(err)
	}
	ip := hostAddress(t)
	a := newAggregation(t, tc, bins, 1, "--enable-aggregator-routing=true")
	a.routed = ip
	a.storage = []string{"--datastore-endpoint=" + endpoint}
	policy := filepath.Join(a.work, "audit-policy.yaml")
	writeFile(t, policy, cluster.AuditPolicy(wardleGroup, "flunders"))
	auditLog := func(i int) string { return filepath.Join(a.work, fmt.Sprintf("audit-%d.log", i)) }
	a.replicaFlags = func(i int) []string {
		return []string{"--audit-policy-file=" + policy, "--audit-log-path=" + auditLog(i), "--audit-log-maxage=1"}
	}
	proj := filepath.Join(a.work, "wardle")
	copyTree(t, filepath.Join(tc.root, "examples", "wardle"), proj)
	a.install(t, proj, bin, 2, nil)
	a.admin.ok(t, "create", "namespace", replicasNS)

	cfg, err := a.kas.AdminConfig()
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = loadQPS, loadQPS
	// Each request names itself with the Audit-ID header, which kube-apiserver keeps and
	// passes on to the replica it proxies to.
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return cluster.AuditIDTransport{RT: rt} })
	clients, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	client := clients.Resource(flundersV1beta1).Namespace(replicasNS)

	for _, n := range []int{2, 3} {
		if n > len(a.replicas) {
			a.addReplica(t)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		// served is which replica served each audit ID.
		served := func() map[string]int {
			m := map[string]int{}
			for i := range a.replicas {
				for _, id := range auditIDs(t, auditLog(i)) {
					m[id] = i
				}
			}
			return m
		}
		list, err := client.List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// Watches through kube-apiserver until each replica serves one of them.
		var watches []*arrivals
		var watchOn []int
		for k := 0; ; k++ {
			id := fmt.Sprintf("watch-%d-%d", n, k)
			w, err := watchArrivals(cluster.WithAuditID(ctx, id), &replica{name: "kube-apiserver", client: client}, list.GetResourceVersion())
			if err != nil {
				t.Fatalf("watching flunders through kube-apiserver: %v", err)
			}
			var on int
			if err := poll(10*time.Second, func() error {
				i, ok := served()[id]
				if !ok {
					return fmt.Errorf("no replica's audit log has the watch %s", id)
				}
				on = i
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			watches, watchOn = append(watches, w), append(watchOn, on)
			held := map[int]bool{}
			for _, i := range watchOn {
				held[i] = true
			}
			if len(held) == n {
				break
			}
			if k == 10*n {
				t.Fatalf("%d watches through kube-apiserver, served by replicas %v only of %d", k+1, watchOn, n)
			}
		}

		var all, cross, extra []time.Duration
		type create struct {
			id  string
			lat []time.Duration // per watch
		}
		var creates []create
		for i := range latencyWrites {
			time.Sleep(rand.N(50 * time.Millisecond))
			name := fmt.Sprintf("routed-%d-%d", n, i)
			start := time.Now()
			created, err := client.Create(cluster.WithAuditID(ctx, name), newFlunder(name, 1), metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("creating %s through kube-apiserver: %v", name, err)
			}
			c := create{id: name}
			for j, w := range watches {
				at, err := w.wait(name, created.GetResourceVersion(), eventTimeout)
				if err != nil {
					t.Fatalf("watch %d (on replica %d): %v", j, watchOn[j], err)
				}
				c.lat = append(c.lat, at.Sub(start))
			}
			creates = append(creates, c)
		}
		cancel()
		on := served()
		perReplica := make([]int, len(a.replicas))
		var slow []string
		for _, c := range creates {
			i, ok := on[c.id]
			if !ok {
				t.Fatalf("no replica's audit log has the create %s", c.id)
			}
			perReplica[i]++
			var base time.Duration = -1
			for j, d := range c.lat {
				if watchOn[j] == i && (base < 0 || d < base) {
					base = d
				}
			}
			if base < 0 {
				t.Fatalf("no watch on replica %d, which served %s", i, c.id)
			}
			for j, d := range c.lat {
				all = append(all, d)
				if watchOn[j] != i {
					cross = append(cross, d)
					extra = append(extra, d-base)
				}
				if d > latencyTarget {
					slow = append(slow, fmt.Sprintf("%s through replica %d seen by a watch on replica %d after %s", c.id, i, watchOn[j], d.Round(100*time.Microsecond)))
				}
			}
		}
		if len(slow) > 0 {
			t.Logf("%s, %d replicas: deliveries later than %s:\n%s", dbName, n, latencyTarget, strings.Join(slow, "\n"))
		}
		t.Logf("%s, %d replicas through kube-apiserver: %d creates served by the replicas %v, %d watches on the replicas %v",
			dbName, n, len(creates), perReplica, len(watches), watchOn)
		for _, s := range []struct {
			what string
			ds   []time.Duration
		}{{"every delivery", all}, {"across replicas", cross}} {
			if len(s.ds) == 0 {
				t.Fatalf("%s, %d replicas: no delivery %s", dbName, n, s.what)
			}
			p50, p90, p99 := percentile(s.ds, 50), percentile(s.ds, 90), percentile(s.ds, 99)
			t.Logf("%s, %d replicas through kube-apiserver, %s: p50 %s, p90 %s, p99 %s, max %s (%d deliveries)",
				dbName, n, s.what, p50.Round(100*time.Microsecond), p90.Round(100*time.Microsecond), p99.Round(100*time.Microsecond),
				slices.Max(s.ds).Round(100*time.Microsecond), len(s.ds))
		}
		checkLatency(t, fmt.Sprintf("%s, %d replicas through kube-apiserver: across replicas", dbName, n), extra)
	}
}

// hostAddress is an IPv4 address of this machine an EndpointSlice accepts; the test is
// skipped on a machine without one.
func hostAddress(t *testing.T) string {
	t.Helper()
	ip, err := cluster.HostAddress()
	if errors.Is(err, cluster.ErrNoHostAddress) {
		t.Skip("no IPv4 address outside the loopback range for the Service's EndpointSlices")
	}
	if err != nil {
		t.Fatal(err)
	}
	return ip
}

// auditIDs are the IDs of the events in the audit log at path.
func auditIDs(t *testing.T, path string) []string {
	t.Helper()
	ids, err := cluster.AuditIDs(path)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}
