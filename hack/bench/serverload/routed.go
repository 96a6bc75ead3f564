package main

// The -replicas comparison's side through kube-apiserver: the replicas in
// cluster mode on one database, each listening on an address of this machine
// outside the loopback range and listed, once it answers /readyz, in an
// EndpointSlice of the Service that examples/wardle's APIService names; the
// control plane's kube-apiserver, started with
// --enable-aggregator-routing=true, then picks one of them for each request,
// as it does in a cluster. The whole workload goes through kube-apiserver.
// Every request of the paced watch names itself with the Audit-ID header and
// each replica's audit log records the creates and watches of that watch's
// namespaces, so that each delivery counts as cross-replica (the watch served
// by another replica than the create) or same-replica.

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/apigen-dev/apigen/test/cluster"
)

// examples/wardle's deployment names (the +apigen:deploy defaults).
const (
	routedNamespace = "wardle-system"
	routedService   = "wardle-apiserver"
)

// routedControlPlane is what kube-apiserver needs to route to the replicas:
// its flag, and the serving certificate's name and address for them. ip is
// this machine's address the replicas listen on.
func (b *bench) routedControlPlane() (ip string, err error) {
	if ip, err = cluster.HostAddress(); err != nil {
		return "", fmt.Errorf("the replicas through kube-apiserver: %w", err)
	}
	b.kasArgs = append(b.kasArgs, "--enable-aggregator-routing=true")
	b.servingDNS = append(b.servingDNS, routedService+"."+routedNamespace+".svc")
	b.servingIPs = append(b.servingIPs, net.ParseIP(ip))
	return ip, nil
}

// registerRouted creates the Service (a ClusterIP one, without endpoints
// until a replica is ready) and the APIService of wardle.example.com/v1alpha1
// that names it.
func (b *bench) registerRouted(ctx context.Context) error {
	if err := createNamespaces(ctx, b.kas, []string{routedNamespace}); err != nil {
		return err
	}
	manifests := []string{
		fmt.Sprintf(`apiVersion: v1
kind: Service
metadata: {name: %s, namespace: %s}
spec: {ports: [{name: https, port: 443, protocol: TCP}]}
`, routedService, routedNamespace),
		apiServiceManifest(flunderKind.GV.Group, flunderKind.GV.Version, routedNamespace, routedService, 443, b.servingCA.CertPEM),
	}
	cfg, err := b.kas.AdminConfig()
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	for i, gvr := range []schema.GroupVersionResource{
		{Version: "v1", Resource: "services"},
		{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"},
	} {
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(manifests[i]), &obj.Object); err != nil {
			return err
		}
		_, err := dyn.Resource(gvr).Namespace(obj.GetNamespace()).Create(ctx, obj, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("creating %s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
	}
	return nil
}

// startRouted starts n replicas of bin in cluster mode on endpoint at once,
// listening on ip, lists each in the Service's EndpointSlices once it answers
// /readyz, and waits until kube-apiserver proxies to them. The side is
// reached through kube-apiserver; its CPU is kube-apiserver's, every
// replica's and the storage's; its start-up is until all answer /readyz.
// auditNS are the namespaces whose creates and watches the replicas' audit
// logs record.
func (b *bench) startRouted(ctx context.Context, name, bin, endpoint, ip, logName string, sp storageProc, n int, auditNS []string) (*running, error) {
	policy := filepath.Join(b.dir, name+"-audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(cluster.AuditPolicy(flunderKind.GV.Group, flunderKind.Resource, auditNS...)), 0o644); err != nil {
		return nil, err
	}
	cfg, err := b.kas.AdminConfig()
	if err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	rs := make([]*running, n)
	errs := make([]error, n)
	auditLogs := make([]string, n)
	routed := make([]string, n)
	begin := time.Now()
	var ready time.Duration
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range n {
		r := string(rune('a' + i))
		auditLogs[i] = filepath.Join(b.dir, logName+"-"+r+"-audit.log")
		wg.Go(func() {
			s := server{Name: name + "-" + r, Bin: bin, bind: ip, storage: []string{"--datastore-endpoint=" + endpoint},
				extraArgs: []string{"--audit-policy-file=" + policy, "--audit-log-path=" + auditLogs[i], "--audit-log-maxage=1"}}
			if rs[i], errs[i] = b.start(ctx, s, logName+"-"+r); errs[i] != nil {
				return
			}
			mu.Lock()
			ready = max(ready, time.Since(begin))
			mu.Unlock()
			if errs[i] = cluster.Route(ctx, cs, routedNamespace, routedService, routedService+"-"+r, ip, rs[i].port); errs[i] == nil {
				routed[i] = routedService + "-" + r
			}
		})
	}
	wg.Wait()
	unroute := func() {
		for _, s := range routed {
			if s == "" {
				continue
			}
			err := cs.DiscoveryV1().EndpointSlices(routedNamespace).Delete(context.Background(), s, metav1.DeleteOptions{})
			if err != nil {
				log.Printf("%s: deleting EndpointSlice %s: %v", name, s, err)
			}
		}
	}
	stopAll := func() {
		unroute()
		for _, r := range rs {
			if r != nil {
				r.stop()
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		stopAll()
		return nil, err
	}
	through, err := routedTarget(name, cfg, b.kas.Process.Pid())
	if err != nil {
		stopAll()
		return nil, err
	}
	for _, r := range rs {
		through.procs = append(through.procs, r.procs[0])
	}
	through.procs = append(through.procs, &proc{Name: sp.name, Pid: sp.pid, Tree: sp.tree})
	through.served = func() (map[string]int, error) {
		m := map[string]int{}
		for i, path := range auditLogs {
			ids, err := cluster.AuditIDs(path)
			if err != nil {
				return nil, err
			}
			for _, id := range ids {
				m[id] = i
			}
		}
		return m, nil
	}
	// kube-apiserver proxies once its availability check has reached a
	// replica through the Service, and answers 503 until then.
	if err := cluster.Poll(2*time.Minute, nil, func() error {
		_, err := through.list(ctx, "warm")
		return err
	}); err != nil {
		stopAll()
		return nil, fmt.Errorf("%s: kube-apiserver does not proxy to the replicas: %w\n%s", name, err, rs[0].proc.Describe())
	}
	return &running{target: through, proc: rs[0].proc, startup: ready, also: rs[1:], unroute: unroute}, nil
}

// routedTarget is examples/wardle's Flunders through kube-apiserver at cfg,
// as cfg's user, each request naming itself with the Audit-ID its context
// carries (cluster.WithAuditID).
func routedTarget(name string, cfg *rest.Config, kasPid int) (*target, error) {
	t, err := configTarget(name, "kube-apiserver", cfg, flunderKind, kasPid)
	if err != nil {
		return nil, err
	}
	tlsConfig, err := rest.TLSConfigFor(cfg)
	if err != nil {
		return nil, err
	}
	closeIdle(t.rc.Client)
	t.newClient = clients(cfg.Host, flunderKind, func() *http.Client {
		return &http.Client{Transport: cluster.AuditIDTransport{RT: newTransport(tlsConfig)}}
	})
	t.rc, _, err = t.newClient()
	return t, err
}

// delivered is one delivery of the paced watch: the audit IDs of the watch
// that got it and of the create that made it, and its latency.
type delivered struct {
	watch, create string
	lat           time.Duration
}

// latencySplit is the latency of some deliveries.
type latencySplit struct {
	N        int
	P50, P99 time.Duration
}

// splitByReplica counts each delivery as cross-replica when served names
// another replica for its watch than for its create, same-replica when it
// names the same, and unattributed when it names either not.
func splitByReplica(ds []delivered, served map[string]int) (cross, same latencySplit, unattributed int) {
	var c, s []time.Duration
	for _, d := range ds {
		w, okW := served[d.watch]
		cr, okC := served[d.create]
		switch {
		case !okW || !okC:
			unattributed++
		case w != cr:
			c = append(c, d.lat)
		default:
			s = append(s, d.lat)
		}
	}
	split := func(ls []time.Duration) latencySplit {
		slices.Sort(ls)
		return latencySplit{N: len(ls), P50: percentile(ls, 0.50), P99: percentile(ls, 0.99)}
	}
	return split(c), split(s), unattributed
}
