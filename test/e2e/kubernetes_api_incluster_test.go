package e2e

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"sigs.k8s.io/yaml"

	"github.com/apigen-dev/apigen/test/cluster"
)

// The k8s.io/api project in a cluster: kube-apiserver leaves some of its own groups to the
// generated server, which serves them behind APIServices, and kube-controller-manager's
// namespace controller deletes a namespace holding an object of every namespaced kind they have.

// kubeAPIServerKeeps are the groups of the project kube-apiserver must serve itself: its
// authorizer, aggregator, admission plugins' informers (node, scheduling, storage), service IP
// allocation (networking), leases, and kube-controller-manager's storage-version migrator need
// them. The project's other groups are turned off in kube-apiserver and served by the generated
// server.
var kubeAPIServerKeeps = []string{
	"admissionregistration.k8s.io", "authentication.k8s.io", "authorization.k8s.io", "coordination.k8s.io",
	"discovery.k8s.io", "flowcontrol.apiserver.k8s.io", "internal.apiserver.k8s.io", "networking.k8s.io", "node.k8s.io",
	"rbac.authorization.k8s.io", "scheduling.k8s.io", "storage.k8s.io", "storagemigration.k8s.io",
}

// kubeAPIServerTurnsOff are the groups kube-apiserver serves by default that it leaves to the
// generated server (the project's other groups it does not serve by default).
var kubeAPIServerTurnsOff = []string{"apps", "autoscaling", "batch", "certificates.k8s.io", "events.k8s.io", "policy", "resource.k8s.io"}

// kubeAPIServerLeaves turns off in kube-apiserver every version it serves of
// kubeAPIServerTurnsOff.
var kubeAPIServerLeaves = "--runtime-config=apps/v1=false,autoscaling/v1=false,autoscaling/v2=false,batch/v1=false," +
	"certificates.k8s.io/v1=false,certificates.k8s.io/v1beta1=false,events.k8s.io/v1=false,policy/v1=false," +
	"resource.k8s.io/v1=false,resource.k8s.io/v1beta1=false"

// podTemplate is a valid pod template of the workloads in validSpecs.
const podTemplate = `{metadata: {labels: {app: matrix}}, spec: {restartPolicy: %s, containers: [{name: c, image: busybox}]}}`

// validSpecs are valid objects (spec only) of the namespaced kinds whose k8s.io/api fixture
// their validation refuses, by kind (the same in each group and version that has it).
var validSpecs = map[string]string{
	"DaemonSet":             "spec: {selector: {matchLabels: {app: matrix}}, template: " + fmt.Sprintf(podTemplate, "Always") + "}",
	"Deployment":            "spec: {selector: {matchLabels: {app: matrix}}, template: " + fmt.Sprintf(podTemplate, "Always") + "}",
	"ReplicaSet":            "spec: {selector: {matchLabels: {app: matrix}}, template: " + fmt.Sprintf(podTemplate, "Always") + "}",
	"StatefulSet":           "spec: {selector: {matchLabels: {app: matrix}}, serviceName: matrix, template: " + fmt.Sprintf(podTemplate, "Always") + "}",
	"Job":                   "spec: {template: " + fmt.Sprintf(podTemplate, "Never") + "}",
	"CronJob":               "spec: {schedule: '*/5 * * * *', jobTemplate: {spec: {template: " + fmt.Sprintf(podTemplate, "Never") + "}}}",
	"Eviction":              "spec: {target: {pod: {name: web-0, uid: 0c1f1b3a-4d35-4e0e-9a0a-5c8b3a1f2d4e}}}",
	"EvictionRequest":       "spec: {target: {pod: {name: web-0, uid: 0c1f1b3a-4d35-4e0e-9a0a-5c8b3a1f2d4e}}, requester: example.com/matrix, intent: Eviction}",
	"ResourceClaim":         "spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}",
	"ResourceClaimTemplate": "spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}}",
}

// checkKubernetesAPINamespaceDeletion serves the project built as serverBin behind kube-apiserver
// (its groups but kubeAPIServerKeeps), creates k8s.io/api's fixture of every namespaced kind
// they serve in one namespace and deletes the namespace: kube-controller-manager deletes every
// object, nothing is left in storage.
func checkKubernetesAPINamespaceDeletion(t *testing.T, tc *toolchain, bins cluster.Binaries, proj, serverBin, apiDir string) {
	start := time.Now()
	a := newAggregation(t, tc, bins, 1, kubeAPIServerLeaves)
	// Left out: the APIServices of the groups kube-apiserver keeps, and the workloads of the
	// groups it turned off (the server runs as a process here, on the control plane's etcd).
	a.install(t, proj, serverBin, 1, func(obj *unstructured.Unstructured) bool {
		if obj.GetKind() == "APIService" {
			group, _, _ := unstructured.NestedString(obj.Object, "spec", "group")
			return slices.Contains(kubeAPIServerKeeps, group)
		}
		group := obj.GroupVersionKind().Group
		return slices.Contains(kubeAPIServerTurnsOff, group)
	})
	c := withControllerManager(t, bins, a)
	cfg, err := a.kas.AdminConfig()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the project behind kube-apiserver (%d APIServices) with kube-controller-manager in %s", len(a.apiServices), time.Since(start).Round(time.Millisecond))

	// Every namespaced kind the generated server serves here, read from discovery through
	// kube-apiserver, and k8s.io/api's fixture of each.
	resources := map[string]map[string]metav1.APIResource{}
	for _, name := range a.apiServices {
		version, group, _ := strings.Cut(strings.TrimPrefix(name, "apiservice/"), ".")
		gv := group + "/" + version
		resources[gv] = map[string]metav1.APIResource{}
		for n, r := range discoveryResources(t, cfg, gv) {
			if r.Namespaced {
				resources[gv][n] = r
			}
		}
	}
	fixtures := kubernetesFixtures(t, apiDir, resources)

	const ns = "matrix"
	c.namespace(t, ns)
	ctx := context.Background()
	var created []string
	for _, key := range slices.Sorted(maps.Keys(fixtures)) {
		gv, kind, _ := strings.Cut(key, " ")
		var resource string
		for _, r := range resources[gv] {
			if r.Kind == kind && !strings.Contains(r.Name, "/") {
				resource = r.Name
			}
		}
		client := a.dyn.Resource(schema.FromAPIVersionAndKind(gv, kind).GroupVersion().WithResource(resource)).Namespace(ns)
		obj := fixtures[key]
		obj.SetNamespace(ns)
		// One name per version: a kind served in two versions is one resource.
		obj.SetName(strings.ToLower(kind) + "-" + schema.FromAPIVersionAndKind(gv, kind).Version)
		_, err := client.Create(ctx, obj, metav1.CreateOptions{})
		if spec, ok := validSpecs[kind]; err != nil && ok {
			// k8s.io/api's fixture holds placeholders its validation refuses ("nameValue"):
			// an object of the kind with a valid spec instead.
			valid := &unstructured.Unstructured{Object: map[string]any{"apiVersion": gv, "kind": kind}}
			if err := yaml.Unmarshal([]byte(spec), &valid.Object); err != nil {
				t.Fatal(err)
			}
			valid.SetName(obj.GetName())
			valid.SetNamespace(ns)
			_, err = client.Create(ctx, valid, metav1.CreateOptions{})
		}
		if err != nil {
			t.Errorf("%s: creating it through kube-apiserver: %v", key, err)
			continue
		}
		created = append(created, key)
	}
	t.Logf("created an object of each of %d namespaced kinds in %d group-versions: %v", len(created), len(resources), created)

	// k8s.io/api's types carry protobuf tags; the project has apigen's marshalers for them
	// (not upstream's generated.pb.go, which the copy leaves out): every kind is listed in
	// protobuf through kube-apiserver, as kube-controller-manager's clients ask.
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	n := &negotiation{t: t, hc: hc, host: strings.TrimSuffix(cfg.Host, "/")}
	for _, key := range created {
		gv, kind, _ := strings.Cut(key, " ")
		for _, r := range resources[gv] {
			if r.Kind != kind || strings.Contains(r.Name, "/") {
				continue
			}
			path := "/apis/" + gv + "/namespaces/" + ns + "/" + r.Name
			n.proto("list "+key, http.MethodGet, path, protobufFirst, "", "", http.StatusOK, kind+"List")
		}
	}

	if err := c.cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	c.namespaceGone(t, ns, 3*time.Minute)

	// Nothing of the namespace is left in the generated server's storage.
	resp, err := etcdStorage{a.etcd}.client(t).Get(ctx, "/registry/", clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, kv := range resp.Kvs {
		if strings.Contains(string(kv.Key), "/"+ns+"/") {
			left = append(left, string(kv.Key))
		}
	}
	if len(left) > 0 {
		t.Errorf("after namespace %s was deleted, etcd still holds %s", ns, strings.Join(left, ", "))
	}
	if t.Failed() {
		t.Logf("kube-controller-manager:\n%s\nreplica:\n%s", c.kcm.Process.Describe(), a.replicas[0].Describe())
	}
}
