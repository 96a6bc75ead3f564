package e2e

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/apigen-dev/apigen/test/cluster"
)

// The wardle example's deployment names (the +apigen:deploy defaults).
const (
	wardleNamespace = "wardle-system"
	wardleService   = "wardle-apiserver"
)

// wardleAPIServices are the example's APIServices, one per version.
var wardleAPIServices = []string{"apiservice/v1beta1.wardle.example.com", "apiservice/v1alpha1.wardle.example.com"}

var flundersGVR = schema.GroupVersionResource{Group: wardleGroup, Version: "v1alpha1", Resource: "flunders"}

// controlPlane builds bin/etcd and bin/kube-apiserver once per run.
var controlPlane = sync.OnceValues(func() (cluster.Binaries, error) {
	root, err := repoRoot()
	if err != nil {
		return cluster.Binaries{}, err
	}
	return cluster.Build(root)
})

// aggregation is examples/wardle in cluster mode behind a real kube-apiserver,
// with its generated manifests applied.
type aggregation struct {
	work    string
	etcd    *cluster.Etcd
	kas     *cluster.KubeAPIServer
	admin   *kubectl
	dyn     dynamic.Interface // admin, through kube-apiserver
	certDir string            // the server's `certs` output

	serverBin, saKubeconfig string
	lb                      *cluster.LoadBalancer // the Service: what the APIService points at
	replicas                []*process
	ports                   []int    // the replicas'
	apiServices             []string // apiservice/<name>, as kubectl names them
	// storage are the replicas' storage flags: the control plane's etcd when nil.
	storage []string
	// routed, when set, is an address of this machine outside the loopback range (which an
	// EndpointSlice refuses): the replicas listen on it, each on its own port, the Service
	// keeps its ClusterIP and lists them in EndpointSlices, and kube-apiserver, started with
	// --enable-aggregator-routing=true, picks one of them per request as it does in a cluster.
	routed string
	// replicaFlags, when set, gives replica i flags after the Deployment's.
	replicaFlags func(i int) []string
	// scrape GETs /metrics at port as Prometheus's ServiceAccount (checkMetricsScrape).
	scrape func(port int) (int, string, error)
}

// TestAggregated runs examples/wardle as an aggregated API server: etcd (3
// members, TLS) and kube-apiserver built from Go modules, the generated RBAC
// and APIService applied with kubectl, the server in cluster mode with a
// service-account token, and everything checked through kube-apiserver with
// the real kubectl.
func TestAggregated(t *testing.T) {
	tc := tools(t)
	bins, err := controlPlane()
	if err != nil {
		t.Fatal(err)
	}
	a := startAggregation(t, tc, bins)

	t.Run("config/default builds with cert-manager instead", func(t *testing.T) { a.checkCertManagerOverlay(t) })
	t.Run("discovery and OpenAPI are merged", func(t *testing.T) { a.checkDiscovery(t) })
	t.Run("CRUD, watch and status through kube-apiserver", func(t *testing.T) { a.checkCRUD(t) })
	t.Run("RBAC is delegated", func(t *testing.T) { a.checkRBAC(t) })
	t.Run("the built-in edit and view roles aggregate the generated ones", func(t *testing.T) { a.checkAggregatedRoles(t) })
	t.Run("admission: policies, namespaces and the project's own plugin", func(t *testing.T) { a.checkAdmission(t) })
	t.Run("request headers are trusted only from the front proxy", func(t *testing.T) { a.checkForgedHeaders(t) })
	t.Run("a Prometheus ServiceAccount scrapes /metrics with the generated ClusterRole", func(t *testing.T) { a.checkMetricsScrape(t) })
	t.Run("kube-apiserver's authorization of a proxied request is not asked again", func(t *testing.T) { a.checkProxiedNotReviewed(t) })
	t.Run("the monitoring component parses and names only exported metrics", func(t *testing.T) { a.checkMonitoring(t) })
	// Before the failover kills one: neither replica was refused anything
	// by kube-apiserver, so the generated RBAC covers what the server reads.
	t.Run("the generated RBAC is sufficient", func(t *testing.T) { a.checkNoForbidden(t) })
	t.Run("survives losing an etcd member and a replica", func(t *testing.T) { a.checkFailover(t) })
}

func startAggregation(t *testing.T, tc *toolchain, bins cluster.Binaries) *aggregation {
	t.Helper()
	a := newAggregation(t, tc, bins, 3)
	a.installWardle(t, tc, 2)
	return a
}

// installWardle installs a copy of examples/wardle with its replicas.
func (a *aggregation) installWardle(t *testing.T, tc *toolchain, replicas int) {
	t.Helper()
	proj := filepath.Join(a.work, "wardle")
	copyTree(t, filepath.Join(tc.root, "examples", "wardle"), proj)
	a.install(t, proj, wardleServer(t, tc), replicas, nil)
	if !slices.Equal(slices.Sorted(slices.Values(a.apiServices)), slices.Sorted(slices.Values(wardleAPIServices))) {
		t.Errorf("examples/wardle's config/default deploys the APIServices %v, want one per version: %v", a.apiServices, wardleAPIServices)
	}
}

// newAggregation starts etcd (members, TLS) and kube-apiserver with extra flags, and
// kube-controller-manager's clusterrole-aggregation controller, ready for install.
func newAggregation(t *testing.T, tc *toolchain, bins cluster.Binaries, members int, kasFlags ...string) *aggregation {
	t.Helper()
	work := t.TempDir()
	a := &aggregation{work: work}
	start := time.Now()
	var err error
	a.etcd, err = cluster.StartEtcd(bins.Etcd, filepath.Join(work, "etcd"), members)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.etcd.Stop)
	a.kas, err = cluster.StartKubeAPIServer(bins.KubeAPIServer, filepath.Join(work, "kube-apiserver"), a.etcd, kasFlags...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.kas.Stop)
	t.Logf("etcd (%d members) and kube-apiserver ready in %s", members, time.Since(start).Round(time.Millisecond))
	a.admin = &kubectl{bin: tc.kubectl, kubeconfig: a.kas.AdminKubeconfig, cacheDir: filepath.Join(work, "kube-cache")}
	a.dyn = dynamicFor(t, a.kas.AdminKubeconfig)
	// kube-controller-manager's part of RBAC: the built-in admin, edit and view roles get the
	// rules of the ClusterRoles labelled to aggregate into them.
	startProcess(t, cmdOpts{Dir: work}, filepath.Join(work, "clusterrole-aggregator.log"), bins.ClusterRoleAggregator, "--kubeconfig="+a.kas.AdminKubeconfig)
	return a
}

// install deploys the project at proj as its users do: serverBin's certs command mints the
// serving certificate and the kustomize component that puts the CA into the APIServices, the
// generated manifests are applied through config/default, and replicas of serverBin run in
// cluster mode as the Deployment's ServiceAccount, on the control plane's etcd. The objects
// skip reports true for are left out. It waits until every APIService applied is Available.
func (a *aggregation) install(t *testing.T, proj, serverBin string, replicas int, skip func(obj *unstructured.Unstructured) bool) {
	t.Helper()
	a.serverBin = serverBin
	a.certDir = filepath.Join(proj, "config", "certs")
	mustSucceed(t, runCmd(cmdOpts{Dir: proj}, a.serverBin, "certs"))

	// The replicas on their own ports behind one address, as a Service with as many
	// endpoints: the APIServices point at the load balancer (routed: at the Service, whose
	// EndpointSlices name the replicas).
	var addrs []string
	for range replicas {
		port := freePort(t)
		a.ports = append(a.ports, port)
		addrs = append(addrs, "127.0.0.1:"+strconv.Itoa(port))
	}
	var err error
	if a.routed == "" {
		a.lb, err = cluster.NewLoadBalancer(addrs...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(a.lb.Close)
	}

	// What the project's config/default deploys: its APIServices and the Service they name.
	rendered := a.admin.ok(t, "kustomize", filepath.Join(proj, "config", "default"))
	var namespace, service string
	var apiServices []string
	var skipped []*unstructured.Unstructured
	for _, doc := range strings.Split(rendered, "\n---\n") {
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &obj.Object); err != nil || obj.Object == nil {
			continue
		}
		if skip != nil && skip(obj) {
			skipped = append(skipped, obj)
			continue
		}
		if obj.GetKind() == "APIService" {
			namespace, _, _ = unstructured.NestedString(obj.Object, "spec", "service", "namespace")
			service, _, _ = unstructured.NestedString(obj.Object, "spec", "service", "name")
			apiServices = append(apiServices, "apiservice/"+obj.GetName())
		}
	}
	if service == "" || len(apiServices) == 0 {
		t.Fatalf("%s/config/default renders no Service or no APIService:\n%s", proj, rendered)
	}
	a.apiServices = apiServices

	// The generated manifests through the user's config/default, with the test overlay
	// docs/design.md describes: the Service becomes an ExternalName for 127.0.0.1 (loopback
	// endpoints are refused) on the balancer's port.
	overlay := filepath.Join(a.work, "overlay")
	patches := ""
	if a.routed == "" {
		patches = fmt.Sprintf(`- target: {kind: Service, name: %[1]s}
  patch: |
    - op: replace
      path: /spec
      value: {type: ExternalName, externalName: 127.0.0.1, ports: [{name: https, port: %[2]d, protocol: TCP}]}
- target: {group: apiregistration.k8s.io, kind: APIService}
  patch: |
    - op: replace
      path: /spec/service/port
      value: %[2]d
`, service, a.lb.Port)
	}
	for _, obj := range skipped {
		patches += fmt.Sprintf(`- patch: |
    apiVersion: %s
    kind: %s
    metadata: {name: %s, namespace: %q}
    $patch: delete
`, obj.GetAPIVersion(), obj.GetKind(), obj.GetName(), obj.GetNamespace())
	}
	rel, err := filepath.Rel(overlay, filepath.Join(proj, "config", "default"))
	if err != nil {
		t.Fatal(err)
	}
	kustomization := fmt.Sprintf("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- %s\n", filepath.ToSlash(rel))
	if patches != "" {
		kustomization += "patches:\n" + patches
	}
	writeFile(t, filepath.Join(overlay, "kustomization.yaml"), kustomization)
	r := mustSucceed(t, a.admin.run("", "apply", "-k", overlay))
	if strings.Contains(r.Stderr, "PodSecurity") {
		t.Errorf("the generated Deployment violates the namespace's Pod Security level:\n%s", r)
	}

	// The server runs as its ServiceAccount, with only the generated RBAC.
	token := strings.TrimSpace(a.admin.ok(t, "create", "token", service, "-n", namespace, "--duration=2h"))
	if a.saKubeconfig, err = a.kas.TokenKubeconfig(service, token); err != nil {
		t.Fatal(err)
	}
	for i, port := range a.ports {
		a.replicas = append(a.replicas, a.startReplica(t, i, port))
	}
	if a.routed != "" {
		// On SQL storage a replica is ready once the other replicas' writes wake it
		// (its datastore-wakeups check): from then on they reach its watches at once.
		for i, port := range a.ports {
			a.routeWhenReady(t, i, port)
		}
	}

	// kube-apiserver reports the APIServices Available once it reached the server through
	// the Service with the caBundle.
	start := time.Now()
	r = a.admin.run("", append([]string{"wait", "--for=condition=Available", "--timeout=90s"}, apiServices...)...)
	if r.ExitCode != 0 {
		t.Fatalf("APIServices %v did not become Available:\n%s\n%s\n%s", apiServices, r,
			a.admin.run("", append([]string{"get", "-o", "yaml"}, apiServices...)...).Stdout, a.replicas[0].Describe())
	}
	// The condition comes from kube-apiserver's availability check; its proxy learns of it
	// through a watch of its own, and answers 503 "service unavailable" until then.
	cfg, err := a.kas.AdminConfig()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range apiServices {
		version, group, _ := strings.Cut(strings.TrimPrefix(name, "apiservice/"), ".")
		path := "/apis/" + group + "/" + version
		if err := poll(30*time.Second, func() error {
			if status, body, err := restGet(cfg, path); err != nil || status != http.StatusOK {
				return fmt.Errorf("GET %s: %d %v %.500s", path, status, err, body)
			}
			return nil
		}); err != nil {
			t.Fatalf("%s is Available, yet kube-apiserver does not proxy to it: %v", name, err)
		}
	}
	t.Logf("APIServices Available and proxied %s after the replicas started", time.Since(start).Round(time.Millisecond))
}

// startReplica starts one replica of the server in cluster mode on port,
// with the Deployment's flags but local files.
func (a *aggregation) startReplica(t *testing.T, i, port int) *process {
	t.Helper()
	bind := "127.0.0.1"
	if a.routed != "" {
		bind = a.routed
	}
	args := append([]string{
		"--bind-address=" + bind, "--secure-port=" + strconv.Itoa(port),
		"--tls-cert-file=" + filepath.Join(a.certDir, "tls.crt"),
		"--tls-private-key-file=" + filepath.Join(a.certDir, "tls.key"),
		"--kubeconfig=" + a.saKubeconfig,
		"--authentication-kubeconfig=" + a.saKubeconfig,
		"--authorization-kubeconfig=" + a.saKubeconfig,
	}, a.etcd.Flags()...)
	if a.storage != nil {
		args = append(args[:len(args)-len(a.etcd.Flags())], a.storage...)
	}
	if a.replicaFlags != nil {
		args = append(args, a.replicaFlags(i)...)
	}
	return startProcess(t, cmdOpts{Dir: a.work}, filepath.Join(a.work, fmt.Sprintf("replica-%d.log", i)), a.serverBin, args...)
}

// routeTo lists replica i at port in an EndpointSlice of the Service (routed), ready, as
// the EndpointSlice controller lists a ready Pod.
func (a *aggregation) routeTo(t *testing.T, i, port int) {
	t.Helper()
	cfg, err := a.kas.AdminConfig()
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("%s-replica-%d", wardleService, i)
	if err := cluster.Route(context.Background(), cs, wardleNamespace, wardleService, name, a.routed, port); err != nil {
		t.Fatalf("listing replica %d in the Service's EndpointSlices: %v", i, err)
	}
}

// addReplica starts one more replica (routed) and lists it in the Service's EndpointSlices
// once it is ready, as a Deployment scaled up does.
func (a *aggregation) addReplica(t *testing.T) *process {
	t.Helper()
	i, port := len(a.replicas), freePort(t)
	a.ports = append(a.ports, port)
	p := a.startReplica(t, i, port)
	a.replicas = append(a.replicas, p)
	a.routeWhenReady(t, i, port)
	return p
}

// routeWhenReady waits until replica i answers /readyz as the kubelet's probe asks it, lists
// it in the Service's EndpointSlices, as the EndpointSlice controller lists a Pod once it is
// ready, and checks that it then serves the first request kube-apiserver proxies to it: a
// replica must not say it is ready before it can authenticate the front proxy (whose CA it
// reads from the cluster after it starts serving), or that request is refused as anonymous.
func (a *aggregation) routeWhenReady(t *testing.T, i, port int) {
	t.Helper()
	p, host := a.replicas[i], net.JoinHostPort(a.routed, strconv.Itoa(port))
	probe := a.replicaClient(t)
	// Probed often, so that the replica is routed the moment it says it is ready: a kubelet
	// probes every few seconds, and any of its probes may fall on that moment.
	if err := pollEvery(readyTimeout, 5*time.Millisecond, func() error {
		if p.Exited() {
			return stopPolling{errors.New("the replica exited")}
		}
		status, body, err := doRequest(probe, mustRequest(t, "https://"+host+"/readyz"))
		if err == nil && status != http.StatusOK {
			err = fmt.Errorf("/readyz: %d %.300s", status, body)
		}
		return err
	}); err != nil {
		t.Fatalf("replica %d did not become ready: %v\n%s", i, err, p.Describe())
	}
	a.routeTo(t, i, port)

	// kube-apiserver's proxy offers its certificate whatever CAs the server names (client-go
	// answers the handshake's certificate request with it), and so does this client.
	cert := a.clientCert(t, a.kas.FrontProxyCA, fmt.Sprintf("proxy-%d", i), cluster.FrontProxyClientName)
	hc := a.replicaClient(t)
	hc.Transport.(*http.Transport).TLSClientConfig.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
		return &cert, nil
	}
	req := mustRequest(t, fmt.Sprintf("https://%s/apis/%s/v1beta1/namespaces/default/flunders", host, wardleGroup))
	req.Header.Set("X-Remote-User", "admin")
	req.Header.Set("X-Remote-Group", "system:masters")
	if status, body, err := doRequest(hc, req); err != nil || status != http.StatusOK {
		t.Fatalf("replica %d, ready, refused the first request kube-apiserver's proxy sent it: %d %v %.300s\n%s",
			i, status, err, body, p.Describe())
	}
}

func (a *aggregation) checkDiscovery(t *testing.T) {
	out := a.admin.ok(t, "api-resources", "--api-group="+wardleGroup)
	var names []string
	for _, row := range parseTable(out) {
		names = append(names, row["NAME"])
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"fischers", "flunders", "serverinfos"}) {
		t.Errorf("kubectl api-resources --api-group=%s through kube-apiserver: %v, want [fischers flunders serverinfos]\n%s", wardleGroup, names, out)
	}
	// Built-in groups are still there: the aggregated discovery is merged.
	if out := a.admin.ok(t, "api-resources", "--api-group=rbac.authorization.k8s.io", "-o", "name"); !strings.Contains(out, "roles.rbac.authorization.k8s.io") {
		t.Errorf("kube-apiserver's own groups are missing from discovery:\n%s", out)
	}
	// kubectl explain reads the OpenAPI v3 document kube-apiserver merged
	// from the extension server.
	// kube-apiserver fetches the extension server's OpenAPI in the
	// background after the APIService is available: poll.
	var r *cmdResult
	start := time.Now()
	err := poll(90*time.Second, func() error {
		if r = a.admin.run("", "explain", "flunders.spec"); r.ExitCode != 0 {
			return fmt.Errorf("%s", r)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("kubectl explain flunders.spec through kube-apiserver: %v", err)
	}
	t.Logf("kubectl explain works %s after discovery", time.Since(start).Round(time.Millisecond))
	out = r.Stdout
	// The preferred version's schema: v1beta1's reference object.
	for _, want := range []string{"GROUP:      " + wardleGroup, "VERSION:    v1beta1", "reference\t<FlunderReference>"} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl explain flunders.spec through kube-apiserver lacks %q:\n%s", want, out)
		}
	}
}

func (a *aggregation) checkCRUD(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	flunders := a.dyn.Resource(flundersGVR).Namespace("default")
	w, err := flunders.Watch(ctx, metav1.ListOptions{LabelSelector: "e2e=crud"})
	if err != nil {
		t.Fatalf("watch flunders through kube-apiserver: %v", err)
	}
	defer w.Stop()

	flunder := "apiVersion: wardle.example.com/v1alpha1\nkind: Flunder\nmetadata:\n  name: agg\n  namespace: default\n  labels:\n    e2e: crud\nspec:\n  reference: other\n"
	if out := a.admin.okStdin(t, flunder, "create", "-f", "-"); !strings.Contains(out, "flunder."+wardleGroup+"/agg created") {
		t.Errorf("kubectl create through kube-apiserver: %q", out)
	}
	got := a.admin.get(t, "flunders.v1alpha1."+wardleGroup, "agg", "-n", "default")
	// v1alpha1's Default() hook ran in the extension server.
	if rt, _, _ := unstructured.NestedString(got.Object, "spec", "referenceType"); rt != "Flunder" {
		t.Errorf("spec.referenceType = %q, want the defaulted Flunder", rt)
	}
	// kubectl's default is the preferred version, v1beta1, converted by the extension server.
	got = a.admin.get(t, "flunder", "agg", "-n", "default")
	if ref, _, _ := unstructured.NestedStringMap(got.Object, "spec", "reference"); got.GetAPIVersion() != wardleGroup+"/v1beta1" || ref["name"] != "other" || ref["kind"] != "Flunder" {
		t.Errorf("kubectl get flunder agg: %s spec.reference %v, want %s/v1beta1 with {kind: Flunder, name: other}", got.GetAPIVersion(), ref, wardleGroup)
	}
	if names := a.admin.names(t, "flunders", "-n", "default", "-l", "e2e=crud"); !slices.Equal(names, []string{"agg"}) {
		t.Errorf("kubectl get flunders -l e2e=crud: %v, want [agg]", names)
	}
	a.admin.ok(t, "patch", "flunder", "agg", "-n", "default", "--type=merge", "-p", `{"metadata":{"labels":{"patched":"yes"}}}`)
	a.admin.ok(t, "patch", "flunder", "agg", "-n", "default", "--subresource=status", "--type=merge",
		"-p", `{"status":{"conditions":[{"type":"Ready","status":"True","reason":"E2E","message":"set through kube-apiserver","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`)
	got = a.admin.get(t, "flunder", "agg", "-n", "default")
	if got.GetLabels()["patched"] != "yes" {
		t.Errorf("label patch through kube-apiserver was not applied: %v", got.GetLabels())
	}
	if conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions"); len(conds) != 1 {
		t.Errorf("status patch through kube-apiserver: conditions = %v, want one", conds)
	}
	if out := a.admin.ok(t, "delete", "flunder", "agg", "-n", "default"); !strings.Contains(out, "deleted") {
		t.Errorf("kubectl delete: %q", out)
	}

	var seen []watch.EventType
	timeout := time.After(eventTimeout)
	for len(seen) < 4 {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("the watch through kube-apiserver ended early; saw %v", seen)
			}
			seen = append(seen, ev.Type)
		case <-timeout:
			t.Fatalf("watch through kube-apiserver: saw %v, want ADDED, MODIFIED, MODIFIED, DELETED", seen)
		}
	}
	if want := []watch.EventType{watch.Added, watch.Modified, watch.Modified, watch.Deleted}; !slices.Equal(seen, want) {
		t.Errorf("watch through kube-apiserver: %v, want %v", seen, want)
	}
}

func (a *aggregation) checkRBAC(t *testing.T) {
	kc, err := a.kas.UserKubeconfig("alice")
	if err != nil {
		t.Fatal(err)
	}
	alice := &kubectl{bin: a.admin.bin, kubeconfig: kc, cacheDir: filepath.Join(a.work, "alice-cache")}
	a.admin.okStdin(t, "apiVersion: wardle.example.com/v1alpha1\nkind: Flunder\nmetadata:\n  name: rbac\n  namespace: default\n", "create", "-f", "-")

	forbidden := func(r *cmdResult, what string) {
		t.Helper()
		if r.ExitCode == 0 || !strings.Contains(r.Stderr, "Forbidden") {
			t.Errorf("%s: want Forbidden, got:\n%s", what, r)
		}
	}
	forbidden(alice.run("", "get", "flunder", "rbac", "-n", "default"), "alice without a grant gets a flunder")

	a.admin.ok(t, "create", "role", "flunder-reader", "-n", "default", "--verb=get", "--resource=flunders."+wardleGroup)
	a.admin.ok(t, "create", "rolebinding", "alice-reads", "-n", "default", "--role=flunder-reader", "--user=alice")
	// RBAC reaches the extension server through SubjectAccessReview, and
	// its authorizer caches decisions briefly: poll.
	err = poll(30*time.Second, func() error {
		if r := alice.run("", "get", "flunder", "rbac", "-n", "default", "-o", "name"); r.ExitCode != 0 {
			return fmt.Errorf("%s", r)
		}
		return nil
	})
	if err != nil {
		t.Errorf("alice with get granted cannot get the flunder: %v", err)
	}
	forbidden(alice.run("apiVersion: wardle.example.com/v1alpha1\nkind: Flunder\nmetadata:\n  name: by-alice\n  namespace: default\n", "create", "-f", "-"),
		"alice with only get creates a flunder")
	forbidden(alice.run("", "get", "flunders", "-n", "default"), "alice with only get lists flunders")

	// Impersonation is kube-apiserver's, and the extension server sees the
	// impersonated user.
	if r := a.admin.run("", "get", "flunder", "rbac", "-n", "default", "--as=alice", "-o", "name"); r.ExitCode != 0 {
		t.Errorf("admin --as=alice get: %s", r)
	}
	forbidden(a.admin.run("", "delete", "flunder", "rbac", "-n", "default", "--as=alice"), "admin --as=alice deletes a flunder")
	forbidden(a.admin.run("", "get", "flunder", "rbac", "-n", "default", "--as=bob"), "admin --as=bob gets a flunder")
}

// checkForgedHeaders talks to a replica directly, as something inside the
// cluster network could, and claims to be an admin through the front-proxy
// headers.
func (a *aggregation) checkForgedHeaders(t *testing.T) {
	kas := a.kas
	url := fmt.Sprintf("https://127.0.0.1:%d/apis/%s/v1alpha1/namespaces/default/flunders", a.lb.Port, wardleGroup)
	get := func(cert *tls.Certificate) (int, string) {
		t.Helper()
		var certs []tls.Certificate
		if cert != nil {
			certs = append(certs, *cert)
		}
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Header.Set("X-Remote-User", "admin")
		req.Header.Set("X-Remote-Group", "system:masters")
		code, body, err := doRequest(a.replicaClient(t, certs...), req)
		if code == 0 && err != nil {
			return 0, err.Error()
		}
		return code, body
	}
	issue := func(ca *cluster.CA, name, cn string) *tls.Certificate {
		t.Helper()
		c := a.clientCert(t, ca, name, cn)
		return &c
	}
	otherCA, err := cluster.NewCA(a.work, "other-ca", "not-the-front-proxy-ca")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what string
		cert *tls.Certificate
	}{
		{"no client certificate", nil},
		{"a front-proxy-client certificate from another CA", issue(otherCA, "forged-proxy", cluster.FrontProxyClientName)},
		{"a certificate from the request-header CA with a name not allowed", issue(kas.FrontProxyCA, "wrong-name-proxy", "someone-else")},
	} {
		if code, body := get(c.cert); code == http.StatusOK || code == 0 && body == "" {
			t.Errorf("X-Remote-User: admin with %s: %d, want 401 or 403 (or a refused handshake):\n%s", c.what, code, body)
		} else {
			t.Logf("forged X-Remote-User with %s: %d %s", c.what, code, firstLine(body))
		}
	}
	// The control: the real front proxy's certificate makes the same headers
	// count, so the refusals above are about the certificate.
	if code, body := get(issue(kas.FrontProxyCA, "real-proxy", cluster.FrontProxyClientName)); code != http.StatusOK {
		t.Errorf("X-Remote-User: admin with kube-apiserver's proxy client certificate: %d, want 200:\n%s", code, body)
	}
}

// checkFailover writes through kube-apiserver while one etcd member and one
// replica die; kubectl keeps working and every acknowledged create is kept.
func (a *aggregation) checkFailover(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	flunders := a.dyn.Resource(flundersGVR).Namespace("default")

	var mu sync.Mutex
	var acked []string
	var afterKill, failures int
	killed := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ctx.Err() == nil; i++ {
			name := fmt.Sprintf("failover-%04d", i)
			obj := flunderObject(flundersGVR, map[string]any{"name": name, "labels": map[string]any{"e2e": "failover"}})
			cctx, ccancel := context.WithTimeout(ctx, 10*time.Second)
			_, err := flunders.Create(cctx, obj, metav1.CreateOptions{})
			ccancel()
			mu.Lock()
			if err == nil {
				acked = append(acked, name)
				select {
				case <-killed:
					afterKill++
				default:
				}
			} else if ctx.Err() == nil {
				failures++
			}
			mu.Unlock()
			time.Sleep(20 * time.Millisecond)
		}
	}()

	time.Sleep(2 * time.Second)
	// Kill the replica kube-apiserver is connected to, so the writes must
	// move to the other one.
	active := a.lb.Active()
	victim := 0
	if active[1] > active[0] {
		victim = 1
	}
	if active[victim] == 0 {
		t.Fatalf("kube-apiserver holds no connection to either replica (%v) in the middle of writes", active)
	}
	survivor := a.replicas[1-victim]
	a.etcd.Members[0].Process.Kill()
	a.replicas[victim].Kill()
	close(killed)
	t.Logf("killed etcd member %s and replica %d (pid %d, %d connections open to it; %v)",
		a.etcd.Members[0].Name, victim, a.replicas[victim].Pid(), active[victim], active)

	// Writes go on through the remaining replica and etcd members.
	err := poll(60*time.Second, func() error {
		mu.Lock()
		defer mu.Unlock()
		if afterKill < 50 {
			return fmt.Errorf("%d creates acknowledged since the kill", afterKill)
		}
		return nil
	})
	cancel()
	<-done
	mu.Lock()
	t.Logf("%d creates acknowledged (%d after the kill), %d failed while the connections moved", len(acked), afterKill, failures)
	mu.Unlock()
	if err != nil {
		t.Fatalf("writes did not resume after losing an etcd member and a replica: %v\n%s", err, survivor.Describe())
	}

	got := a.admin.names(t, "flunders", "-n", "default", "-l", "e2e=failover")
	var missing []string
	for _, name := range acked {
		if _, found := slices.BinarySearch(got, name); !found {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		t.Errorf("%d acknowledged creates are missing after the failover: %v", len(missing), missing)
	}
	if survivor.Exited() {
		t.Errorf("the surviving replica exited:\n%s", survivor.Describe())
	}
}

// checkCertManagerOverlay builds config/default with the generated
// cert-manager component in place of ../certs, as its comment tells users
// to. There is no cert-manager here: the check is that kustomize builds it
// and that the APIServices ask for cert-manager's CA instead of carrying one.
func (a *aggregation) checkCertManagerOverlay(t *testing.T) {
	def := filepath.Join(a.work, "wardle", "config", "default", "kustomization.yaml")
	orig := readFile(t, def)
	swapped := strings.Replace(orig, "\n- ../certs\n", "\n- ../generated/cert-manager\n", 1)
	if swapped == orig {
		t.Fatalf("config/default/kustomization.yaml does not list ../certs as a line of its own:\n%s", orig)
	}
	writeFile(t, def, swapped)
	defer writeFile(t, def, orig)
	out := a.admin.ok(t, "kustomize", filepath.Dir(def))
	var apiservices, certificates int
	var etcdCertificates []string
	for _, doc := range strings.Split(out, "\n---\n") {
		obj := yamlToObject(t, doc)
		switch obj["kind"] {
		case "APIService":
			apiservices++
			want := wardleNamespace + "/" + wardleService + "-serving-cert"
			if got, _, _ := unstructured.NestedString(obj, "metadata", "annotations", "cert-manager.io/inject-ca-from"); got != want {
				t.Errorf("APIService %v: inject-ca-from = %v, want %s", field(obj, "metadata.name"), got, want)
			}
			if ca := field(obj, "spec.caBundle"); ca != nil {
				t.Errorf("APIService %v carries a caBundle with cert-manager: %v", field(obj, "metadata.name"), ca)
			}
		case "Certificate":
			if field(obj, "metadata.name") != wardleService+"-serving-cert" {
				etcdCertificates = append(etcdCertificates, fmt.Sprint(field(obj, "spec.secretName")))
				continue
			}
			certificates++
			if dns := fmt.Sprint(field(obj, "spec.dnsNames")); !strings.Contains(dns, wardleService+"."+wardleNamespace+".svc") {
				t.Errorf("Certificate dnsNames %s lack %s.%s.svc", dns, wardleService, wardleNamespace)
			}
		case "Secret":
			t.Errorf("with cert-manager, config/default still generates a Secret:\n%s", doc)
		}
	}
	// cert-manager also issues the bundled etcd's CA and the three Secrets its pods mount.
	slices.Sort(etcdCertificates)
	if want := []string{wardleService + "-etcd-ca", wardleService + "-etcd-client", wardleService + "-etcd-peer", wardleService + "-etcd-server"}; !slices.Equal(etcdCertificates, want) {
		t.Errorf("kubectl kustomize with cert-manager: etcd Certificates for Secrets %v, want %v", etcdCertificates, want)
	}
	if apiservices != len(wardleAPIServices) || certificates != 1 {
		t.Errorf("kubectl kustomize with cert-manager: %d APIServices and %d Certificates, want %d and 1:\n%s", apiservices, certificates, len(wardleAPIServices), out)
	}
}

func (a *aggregation) checkNoForbidden(t *testing.T) {
	for i, r := range a.replicas {
		for _, line := range strings.Split(r.Log(), "\n") {
			if strings.Contains(line, "forbidden") || strings.Contains(line, "Forbidden") {
				t.Errorf("replica %d was refused something by kube-apiserver (service account %s/%s):\n%s", i, wardleNamespace, wardleService, line)
			}
		}
	}
}

// replicaClient is an HTTPS client of the replicas as kube-apiserver is one: it trusts the
// serving CA of the APIService's caBundle and names the Service; it presents certs.
func (a *aggregation) replicaClient(t *testing.T, certs ...tls.Certificate) *http.Client {
	t.Helper()
	caPEM, err := os.ReadFile(filepath.Join(a.certDir, "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{
		RootCAs: pool, ServerName: wardleService + "." + wardleNamespace + ".svc", Certificates: certs}}}
}

// clientCert issues a client certificate named cn from ca, its files named name.
func (a *aggregation) clientCert(t *testing.T, ca *cluster.CA, name, cn string) tls.Certificate {
	t.Helper()
	p, err := ca.Issue(a.work, name, cluster.CertOptions{CommonName: cn})
	if err != nil {
		t.Fatal(err)
	}
	c, err := tls.X509KeyPair(p.CertPEM, p.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if len(line) > 200 {
		line = line[:200] + "..."
	}
	return line
}

// checkMetricsScrape scrapes /metrics the way Prometheus in the cluster does: directly at
// the Service, with its ServiceAccount's token. Refused until that account is bound to the
// generated metrics-reader ClusterRole; then it sees our API's request metrics.
func (a *aggregation) checkMetricsScrape(t *testing.T) {
	a.admin.ok(t, "create", "namespace", "monitoring")
	a.admin.ok(t, "create", "serviceaccount", "prometheus", "-n", "monitoring")
	token := strings.TrimSpace(a.admin.ok(t, "create", "token", "prometheus", "-n", "monitoring"))
	client := a.replicaClient(t)
	scrape := func(port int) (int, string, error) {
		req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("https://127.0.0.1:%d/metrics", port), nil)
		req.Header.Set("Authorization", "Bearer "+token)
		return doRequest(client, req)
	}
	a.scrape = scrape
	if code, body, err := scrape(a.lb.Port); code != http.StatusForbidden {
		t.Errorf("scraping /metrics as an unbound ServiceAccount: %d %v %.300s; want 403", code, err, body)
	}
	a.admin.ok(t, "create", "clusterrolebinding", "prometheus-wardle-metrics",
		"--clusterrole="+wardleService+":metrics-reader", "--serviceaccount=monitoring:prometheus")
	// The server caches SubjectAccessReview answers for a few seconds.
	err := poll(eventTimeout, func() error {
		code, body, err := scrape(a.lb.Port)
		if err != nil || code != http.StatusOK {
			return fmt.Errorf("%d %v %.300s", code, err, body)
		}
		if !strings.Contains(body, `group="`+wardleGroup+`"`) {
			return fmt.Errorf("no apiserver series of group %s", wardleGroup)
		}
		return nil
	})
	if err != nil {
		t.Errorf("scraping /metrics as the bound ServiceAccount: %v", err)
	}
}

// checkMonitoring parses every PromQL expression of the generated monitoring component (its
// alerting rules and its Grafana dashboard) with Prometheus's parser (hack/promql), and checks
// that every metric they name is exported by a running replica or, for the APIService alert,
// by kube-apiserver. Only up is Prometheus's own.
func (a *aggregation) checkMonitoring(t *testing.T) {
	if a.scrape == nil {
		t.Skip("needs the ServiceAccount of the scrape check")
	}
	// Opted into next to ../certs, the component builds, and the Secret the ServiceMonitor
	// trusts holds ca.crt.
	def := filepath.Join(a.work, "wardle", "config", "default", "kustomization.yaml")
	orig := readFile(t, def)
	writeFile(t, def, strings.Replace(orig, "\n- ../certs\n", "\n- ../certs\n- ../generated/monitoring\n", 1))
	defer writeFile(t, def, orig)
	kinds := map[string]int{}
	for _, doc := range strings.Split(a.admin.ok(t, "kustomize", filepath.Dir(def)), "\n---\n") {
		obj := yamlToObject(t, doc)
		kind := fmt.Sprint(obj["kind"])
		if kind == "Secret" && field(obj, "metadata.name") != wardleService+"-serving-cert" {
			continue // the bundled etcd's
		}
		kinds[kind]++
		if data, _ := obj["data"].(map[string]any); kind == "Secret" && data["ca.crt"] == nil {
			t.Errorf("the serving certificate's Secret has no ca.crt for the ServiceMonitor:\n%s", doc)
		}
	}
	if kinds["ServiceMonitor"] != 1 || kinds["PrometheusRule"] != 1 || kinds["ConfigMap"] != 1 || kinds["Secret"] != 1 {
		t.Errorf("kubectl kustomize with the monitoring component: %v; want a ServiceMonitor, a PrometheusRule, the dashboard's ConfigMap and the Secret", kinds)
	}

	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	monitoring := filepath.Join(root, "examples", "wardle", "config", "generated", "monitoring")
	var rule struct {
		Spec struct {
			Groups []struct {
				Rules []struct{ Alert, Expr string }
			}
		}
	}
	if err := yaml.Unmarshal([]byte(readFile(t, filepath.Join(monitoring, "prometheusrule.yaml"))), &rule); err != nil {
		t.Fatal(err)
	}
	var input strings.Builder
	add := func(where, expr string) {
		input.WriteString(mustJSON(map[string]string{"where": where, "expr": expr}) + "\n")
	}
	for _, g := range rule.Spec.Groups {
		for _, r := range g.Rules {
			add("prometheusrule.yaml: alert "+r.Alert, r.Expr)
		}
	}
	var cm struct{ Data map[string]string }
	if err := yaml.Unmarshal([]byte(readFile(t, filepath.Join(monitoring, "grafana-dashboard.yaml"))), &cm); err != nil {
		t.Fatal(err)
	}
	for file, text := range cm.Data {
		var dash struct {
			Panels []struct {
				Title   string
				Targets []struct{ Expr string }
			}
		}
		if err := json.Unmarshal([]byte(text), &dash); err != nil {
			t.Fatalf("grafana-dashboard.yaml: %s is not JSON: %v", file, err)
		}
		for _, p := range dash.Panels {
			for _, target := range p.Targets {
				add("grafana-dashboard.yaml: panel "+p.Title, target.Expr)
			}
		}
	}
	r := runCmd(cmdOpts{Dir: filepath.Join(root, "hack", "promql"), Env: goEnv, Stdin: input.String(), Timeout: buildTimeout}, "go", "run", ".")
	if r.ExitCode != 0 {
		t.Fatalf("Prometheus's parser refuses expressions of the monitoring component:\n%s", r)
	}
	names := strings.Fields(r.Stdout)
	if len(names) < 5 {
		t.Fatalf("the monitoring component names only %v", names)
	}

	// etcd_request_errors_total has a series once a request to etcd failed: etcd refuses a
	// request over 1.5 MiB.
	big := fmt.Sprintf("apiVersion: %s/v1alpha1\nkind: Flunder\nmetadata:\n  name: too-big\n  namespace: default\nspec:\n  reference: %s\n  referenceType: Flunder\n",
		wardleGroup, strings.Repeat("x", 2<<20))
	a.admin.fails(t, big, "create", "-f", "-")

	// Either replica may have served the create: Prometheus scrapes them all.
	var server string
	for _, port := range a.ports {
		code, body, err := a.scrape(port)
		if err != nil || code != http.StatusOK {
			t.Fatalf("scraping the replica on port %d: %d %v", port, code, err)
		}
		server += body
	}
	kas := a.admin.ok(t, "get", "--raw", "/metrics")
	for _, name := range names {
		exported := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `[{ ]`)
		switch {
		case name == "up": // recorded by Prometheus for every target it scrapes
		case name == "aggregator_unavailable_apiservice":
			if !exported.MatchString(kas) {
				t.Errorf("kube-apiserver does not export %s", name)
			}
		case !exported.MatchString(server):
			t.Errorf("the monitoring component names %s, which the server does not export", name)
		}
	}
}

// checkAggregatedRoles binds two users to the cluster's built-in edit and view ClusterRoles in
// one namespace, as a cluster administrator would, and proves that the generated
// aggregate-to-edit and aggregate-to-view ClusterRoles extend them to flunders: the editor
// creates, scales and deletes them there (and nowhere else), the viewer only reads.
func (a *aggregation) checkAggregatedRoles(t *testing.T) {
	const ns = "team"
	a.admin.ok(t, "create", "namespace", ns)
	users := map[string]*kubectl{}
	for user, role := range map[string]string{"erin": "edit", "victor": "view"} {
		kc, err := a.kas.UserKubeconfig(user)
		if err != nil {
			t.Fatal(err)
		}
		users[user] = &kubectl{bin: a.admin.bin, kubeconfig: kc, cacheDir: filepath.Join(a.work, user+"-cache")}
		a.admin.ok(t, "create", "rolebinding", user+"-"+role, "-n", ns, "--clusterrole="+role, "--user="+user)
	}
	editor, viewer := users["erin"], users["victor"]
	flunder := func(name, ns string) string {
		return fmt.Sprintf("apiVersion: %s/v1beta1\nkind: Flunder\nmetadata: {name: %s, namespace: %s}\nspec: {replicas: 1}\n", wardleGroup, name, ns)
	}
	// The extension server's authorizer caches SubjectAccessReview answers briefly: poll.
	err := poll(30*time.Second, func() error {
		if r := editor.run(flunder("by-editor", ns), "create", "-f", "-"); r.ExitCode != 0 {
			return fmt.Errorf("%s", r)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("a user bound to edit in %s cannot create a flunder there: %v", ns, err)
	}
	editor.ok(t, "scale", "flunder", "by-editor", "-n", ns, "--replicas=2")
	editor.ok(t, "get", "flunders", "-n", ns)
	forbidden := func(r *cmdResult, what string) {
		t.Helper()
		if r.ExitCode == 0 || !strings.Contains(r.Stderr, "Forbidden") {
			t.Errorf("%s: want Forbidden, got:\n%s", what, r)
		}
	}
	forbidden(editor.run(flunder("elsewhere", "default"), "create", "-f", "-"), "the editor of "+ns+" creates a flunder in default")

	err = poll(30*time.Second, func() error {
		if r := viewer.run("", "get", "flunder", "by-editor", "-n", ns, "-o", "name"); r.ExitCode != 0 {
			return fmt.Errorf("%s", r)
		}
		return nil
	})
	if err != nil {
		t.Errorf("a user bound to view in %s cannot get a flunder there: %v", ns, err)
	}
	viewer.ok(t, "get", "flunders", "-n", ns, "--subresource=scale", "by-editor")
	forbidden(viewer.run(flunder("by-viewer", ns), "create", "-f", "-"), "the viewer creates a flunder")
	forbidden(viewer.run("", "scale", "flunder", "by-editor", "-n", ns, "--replicas=3"), "the viewer scales a flunder")
	forbidden(viewer.run("", "delete", "flunder", "by-editor", "-n", ns), "the viewer deletes a flunder")
	editor.ok(t, "delete", "flunder", "by-editor", "-n", ns)
}
