package e2e

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/test/cluster"
	"github.com/apigen-dev/apigen/test/kapi"
)

// The compatibility matrix's Kubernetes-style sets besides sample-apiserver's: API packages
// with hand-written internal types in pkg/apis/<group>, versions that convert to them, their
// own registration and install package, and client-gen's tags, taken from their Go modules at
// test time and copied unchanged (but for the import paths of their own packages, which name
// the copies) into one project, with nothing added.

// kubernetesStyleRepo is the project's module path.
const kubernetesStyleRepo = "example.com/kstyle"

// kubernetesStyleSets are the modules copied, each with its API group directory.
var kubernetesStyleSets = []struct{ module, apis, group string }{
	// APIService: kube-aggregator's, served by every kube-apiserver (v1; v1beta1 retired).
	{"k8s.io/kube-aggregator@" + kapi.Version, "pkg/apis", "apiregistration"},
	// NodeMetrics and PodMetrics: +resourceName=nodes and pods, +genclient:readonly, served
	// by metrics-server from memory.
	{"k8s.io/metrics@" + kapi.Version, "pkg/apis", "metrics"},
}

// kubernetesStyleDifferences are what the generated server does differently from
// kube-apiserver for apiregistration.k8s.io, each with its reason. The test checks the first
// by creating an APIService whose name kube-apiserver refuses.
var kubernetesStyleDifferences = map[string]string{
	"apiservice names": "kube-apiserver's registry validates an APIService with kube-aggregator's hand-written validation.ValidateAPIService " +
		"(its name must be <version>.<group>, ...); the types do not say to run it, so the generated server checks only the schema",
}

// TestKubernetesStyleAPIs serves kube-aggregator's apiregistration and k8s.io/metrics' metrics
// groups from one project: internal types as every kind's hub, the packages' own registration
// and hand-written defaults, and kinds served from storage the project writes
// (+genclient:readonly). The discovery of apiregistration.k8s.io/v1 is compared with
// kube-apiserver v1.37's; APIServices round-trip through both versions; the metrics kinds are
// served under client-gen's +resourceName, where the generated typed client finds them, in the
// versions the group's own Install installs.
func TestKubernetesStyleAPIs(t *testing.T) {
	tc := tools(t)
	bins, err := controlPlane()
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	proj := initProject(t, tc, work, kubernetesStyleRepo)
	copied := map[string]string{}
	for _, set := range kubernetesStyleSets {
		dir := moduleDir(t, work, set.module)
		modPath, _, _ := strings.Cut(set.module, "@")
		src := filepath.Join(dir, set.apis, set.group)
		err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || kapi.Generated(d.Name()) {
				return err
			}
			rel, _ := filepath.Rel(filepath.Join(dir, set.apis), path)
			content := strings.ReplaceAll(readFile(t, path), modPath+"/"+set.apis+"/", kubernetesStyleRepo+"/pkg/apis/")
			copied[filepath.ToSlash(rel)] = content
			writeFile(t, filepath.Join(proj, "pkg", "apis", rel), content)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []string{"apiregistration/types.go", "apiregistration/install/install.go", "apiregistration/v1/defaults.go", "apiregistration/v1beta1/types.go",
		"metrics/types.go", "metrics/install/install.go", "metrics/v1beta1/types.go", "metrics/v1alpha1/types.go"} {
		if _, ok := copied[want]; !ok {
			t.Fatalf("the modules have no %s (copied %v)", want, slices.Sorted(maps.Keys(copied)))
		}
	}

	r := mustSucceed(t, runCmd(cmdOpts{Dir: proj, Env: goEnv, Timeout: buildTimeout}, tc.apigen, "generate"))
	for rel, content := range copied {
		if readFile(t, filepath.Join(proj, "pkg", "apis", rel)) != content {
			t.Errorf("apigen generate changed the API's own %s", rel)
		}
	}
	// The metrics kinds are +genclient:readonly: storage the project writes, scaffolded once,
	// for the internal types.
	for _, stub := range []string{"pkg/registry/metrics/nodemetrics/storage.go", "pkg/registry/metrics/podmetrics/storage.go"} {
		if !strings.Contains(r.Stdout+r.Stderr, "apigen: wrote "+stub) {
			t.Errorf("apigen generate did not scaffold %s:\n%s", stub, r)
		}
	}
	// The project writes the NodeMetrics storage: one node, from the internal types.
	writeFile(t, filepath.Join(proj, "pkg", "registry", "metrics", "nodemetrics", "storage.go"), nodeMetricsStorage)
	if r := runCmd(cmdOpts{Dir: proj, Env: goEnv}, tc.apigen, "verify"); r.ExitCode != 0 {
		t.Errorf("apigen verify after writing the storage:\n%s", r)
	}

	// kube-apiserver's discovery of apiregistration.k8s.io.
	etcd, err := cluster.StartEtcd(bins.Etcd, filepath.Join(work, "etcd"), 1)
	if err != nil {
		t.Fatal(err)
	}
	kas, err := cluster.StartKubeAPIServer(bins.KubeAPIServer, filepath.Join(work, "kube-apiserver"), etcd)
	if err != nil {
		etcd.Stop()
		t.Fatal(err)
	}
	kasConfig, err := kas.AdminConfig()
	if err != nil {
		t.Fatal(err)
	}
	kasResources := discoveryResources(t, kasConfig, "apiregistration.k8s.io/v1")
	var kasOpenAPI openAPIComponents
	getJSON(t, kasConfig, "/openapi/v3/apis/apiregistration.k8s.io/v1", &kasOpenAPI)
	kas.Stop()
	etcd.Stop()

	k, stop := serve(t, tc, proj, work)
	defer stop()
	cfg := restConfig(t, k.kubeconfig)
	for _, diff := range compareDiscovery("apiregistration.k8s.io/v1", kasResources, discoveryResources(t, cfg, "apiregistration.k8s.io/v1")) {
		t.Errorf("discovery differs from kube-apiserver's: %s: %s", diff.key, diff.what)
	}
	// The served OpenAPI v3 of the group's own models, descriptions aside, is kube-apiserver's.
	var ours openAPIComponents
	getJSON(t, cfg, "/openapi/v3/apis/apiregistration.k8s.io/v1", &ours)
	for _, diff := range compareOpenAPIModels(kasOpenAPI, ours, "io.k8s.kube-aggregator.") {
		t.Errorf("the served OpenAPI v3 of apiregistration.k8s.io/v1: %s", diff)
	}

	// An APIService created in v1 gets v1's hand-written default (the service port) and reads
	// back equal in v1beta1, through the internal types.
	k.okStdin(t, `apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1alpha1.foo.example.com}
spec: {group: foo.example.com, version: v1alpha1, groupPriorityMinimum: 1000, versionPriority: 15, service: {namespace: default, name: foo}, insecureSkipTLSVerify: true}
`, "create", "-f", "-")
	v1 := k.get(t, "apiservices.v1.apiregistration.k8s.io", "v1alpha1.foo.example.com")
	v1beta1 := k.get(t, "apiservices.v1beta1.apiregistration.k8s.io", "v1alpha1.foo.example.com")
	if port := field(v1.Object, "spec.service.port"); mustJSON(port) != "443" {
		t.Errorf("spec.service.port = %v, want v1's default 443", port)
	}
	if a, b := mustJSON(v1.Object["spec"]), mustJSON(v1beta1.Object["spec"]); a != b {
		t.Errorf("the APIService's spec differs between versions:\nv1:      %s\nv1beta1: %s", a, b)
	}
	// kubernetesStyleDifferences: kube-apiserver refuses this name, the generated server does not.
	k.okStdin(t, `apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: not-version-dot-group}
spec: {group: foo.example.com, version: v1, groupPriorityMinimum: 1000, versionPriority: 15}
`, "create", "-f", "-")
	t.Logf("known difference (apiservice names): %s", kubernetesStyleDifferences["apiservice names"])

	// The metrics kinds: under client-gen's resource names, read-only, from the project's
	// storage in every version the group's own install package installs. It leaves out
	// v1alpha1, which k8s.io/metrics still ships: not served, and apigen says so.
	if !strings.Contains(r.Stderr, "install.go:30:1: warning: Install does not install metrics.k8s.io/v1alpha1 (pkg/apis/metrics/v1alpha1), so the server does not serve NodeMetrics, PodMetrics there") {
		t.Errorf("apigen generate did not warn that metrics' Install leaves v1alpha1 out:\n%s", r.Stderr)
	}
	if got := k.run("", "get", "--raw", "/apis/metrics.k8s.io/v1alpha1"); got.ExitCode == 0 {
		t.Errorf("metrics.k8s.io/v1alpha1 is served, although the group's Install does not install it:\n%s", got)
	}
	for _, version := range []string{"v1", "v1beta1"} {
		gv := "metrics.k8s.io/" + version
		have := discoveryResources(t, cfg, gv)
		for _, want := range []metav1.APIResource{
			{Name: "nodes", Kind: "NodeMetrics", Namespaced: false, Verbs: metav1.Verbs{"get", "list", "watch"}},
			{Name: "pods", Kind: "PodMetrics", Namespaced: true, Verbs: metav1.Verbs{"get", "list", "watch"}},
		} {
			got, ok := have[want.Name]
			if !ok || got.Kind != want.Kind || got.Namespaced != want.Namespaced || !slices.Equal(slices.Sorted(slices.Values(got.Verbs)), []string(want.Verbs)) {
				t.Errorf("discovery of %s: %s is %+v (listed %v), want %+v", gv, want.Name, got, ok, want)
			}
		}
		node := k.get(t, "nodes."+version+".metrics.k8s.io", "node-a")
		if cpu := field(node.Object, "usage.cpu"); cpu != "250m" || node.GetAPIVersion() != gv {
			t.Errorf("kubectl get nodes.%s.metrics.k8s.io node-a: %v, want a %s NodeMetrics using 250m of CPU", version, node.Object, gv)
		}
	}
	if r := k.fails(t, "", "get", "pods.v1beta1.metrics.k8s.io", "-n", "default"); !strings.Contains(r.Stderr, "(MethodNotAllowed)") ||
		!strings.Contains(r.Stderr, "write it in pkg/registry/metrics/podmetrics/storage.go") {
		t.Errorf("the PodMetrics storage is still the stub, which should answer 405 naming its file:\n%s", r)
	}

	// The generated typed client calls the same resource the server serves.
	writeFile(t, filepath.Join(proj, "hack", "nodemetrics", "main.go"), nodeMetricsClient)
	out := mustSucceed(t, runCmd(cmdOpts{Dir: proj, Env: goEnv, Timeout: buildTimeout}, "go", "run", "./hack/nodemetrics", k.kubeconfig)).Stdout
	if strings.TrimSpace(out) != "node-a 250m" {
		t.Errorf("the generated clientset's Nodes().Get: %q, want %q", out, "node-a 250m")
	}
}

// openAPIComponents is the part of an OpenAPI v3 document that holds its models.
type openAPIComponents struct {
	Components struct {
		Schemas map[string]any `json:"schemas"`
	} `json:"components"`
}

// compareOpenAPIModels lists how the models of have whose names start with prefix differ from
// want's (kube-apiserver's), descriptions aside; none at all in want is a difference too.
func compareOpenAPIModels(want, have openAPIComponents, prefix string) []string {
	var out []string
	compared := 0
	for _, name := range slices.Sorted(maps.Keys(want.Components.Schemas)) {
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		compared++
		h, ok := have.Components.Schemas[name]
		if !ok {
			out = append(out, name+": not served")
			continue
		}
		if a, b := mustJSON(withoutDescriptions(want.Components.Schemas[name])), mustJSON(withoutDescriptions(h)); a != b {
			out = append(out, fmt.Sprintf("%s:\n  kube-apiserver:   %s\n  generated server: %s", name, a, b))
		}
	}
	if compared == 0 {
		out = append(out, "kube-apiserver serves no model named "+prefix+"*")
	}
	return out
}

// withoutDescriptions is a schema without its documentation, which the two servers word
// alike but need not.
func withoutDescriptions(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			if k != "description" {
				out[k] = withoutDescriptions(x)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = withoutDescriptions(x)
		}
		return out
	}
	return v
}

// nodeMetricsStorage is the project's storage of NodeMetrics: one node's metrics, in the
// internal types, as metrics-server serves them from memory.
const nodeMetricsStorage = `package nodemetrics

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/registry/rest"
	corev1 "k8s.io/api/core/v1"

	metrics "example.com/kstyle/pkg/apis/metrics"
	"example.com/kstyle/pkg/cmd/server"
)

var nodes = schema.GroupResource{Group: "metrics.k8s.io", Resource: "nodes"}

type Storage struct{ rest.TableConvertor }

func NewStorage(*runtime.Scheme) (rest.Storage, error) {
	return &Storage{rest.NewDefaultTableConvertor(nodes)}, nil
}

func node() *metrics.NodeMetrics {
	return &metrics.NodeMetrics{
		ObjectMeta: metav1.ObjectMeta{Name: "node-a", ResourceVersion: "1"},
		Window:     metav1.Duration{Duration: 30e9},
		Usage:      corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")},
	}
}

func (s *Storage) New() runtime.Object     { return &metrics.NodeMetrics{} }
func (s *Storage) Destroy()                {}
func (s *Storage) NamespaceScoped() bool   { return false }
func (s *Storage) GetSingularName() string { return "nodemetrics" }
func (s *Storage) NewList() runtime.Object { return &metrics.NodeMetricsList{} }

func (s *Storage) Get(ctx context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	if name != "node-a" {
		return nil, apierrors.NewNotFound(nodes, name)
	}
	return node(), nil
}

func (s *Storage) List(ctx context.Context, _ *metainternalversion.ListOptions) (runtime.Object, error) {
	return &metrics.NodeMetricsList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: []metrics.NodeMetrics{*node()}}, nil
}

func (s *Storage) Watch(ctx context.Context, options *metainternalversion.ListOptions) (watch.Interface, error) {
	return server.StaticWatch(ctx, options, "1", &metrics.NodeMetrics{}, node())
}
`

// nodeMetricsClient gets node-a's metrics with the project's generated clientset.
const nodeMetricsClient = `package main

import (
	"context"
	"fmt"
	"os"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"

	"example.com/kstyle/pkg/generated/clientset/versioned"
)

func main() {
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Args[1])
	if err != nil {
		panic(err)
	}
	m, err := versioned.NewForConfigOrDie(cfg).MetricsV1beta1().Nodes().Get(context.Background(), "node-a", metav1.GetOptions{})
	if err != nil {
		panic(err)
	}
	cpu := m.Usage["cpu"]
	fmt.Println(m.Name, cpu.String())
}
`
