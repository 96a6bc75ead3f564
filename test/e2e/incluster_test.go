package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/apigen-dev/apigen/test/cluster"
)

// inCluster is examples/wardle behind kube-apiserver with kube-controller-manager beside them,
// as in any cluster.
type inCluster struct {
	*aggregation
	kcm *cluster.KubeControllerManager
	cs  kubernetes.Interface
	// top is the whole test's: replicas restarted by a subtest outlive it.
	top *testing.T
}

// TestInACluster runs kube-controller-manager (built from k8s.io/kubernetes, its clients
// speaking protobuf first as in every cluster) beside kube-apiserver and examples/wardle behind
// its APIServices, and checks what its controllers do with the server's kinds: the namespace
// controller deletes them, the garbage collector follows ownerReferences both ways, quotas
// count them and the server enforces them, and the storage-version migrator rewrites them.
func TestInACluster(t *testing.T) {
	tc := tools(t)
	bins, err := controlPlane()
	if err != nil {
		t.Fatal(err)
	}
	c := withControllerManager(t, bins, startAggregation(t, tc, bins))
	cfg, err := c.kas.AdminConfig()
	if err != nil {
		t.Fatal(err)
	}

	t.Run("protobuf-first clients get protobuf through kube-apiserver", func(t *testing.T) {
		checkNegotiation(t, cfg, "default")
	})
	t.Run("a deleted namespace's objects are deleted", func(t *testing.T) { c.checkNamespaceDeletion(t) })
	t.Run("garbage collection across the API boundary", func(t *testing.T) { c.checkGarbageCollection(t) })
	t.Run("ResourceQuota counts and limits the server's objects", func(t *testing.T) { c.checkQuota(t) })
	t.Run("a StorageVersionMigration rewrites every object", func(t *testing.T) { c.checkStorageMigration(t, etcdStorage{c.etcd}) })
	t.Run("a rolling restart under namespace deletion and garbage collection leaves nothing behind", func(t *testing.T) { c.checkRollingRestart(t) })
	// Last: they stop the replicas, then uninstall.
	t.Run("a namespace deleted while the server is down finishes when it is back", func(t *testing.T) { c.checkNamespaceDeletionServerDown(t) })
	t.Run("uninstalled as documented while a namespace is being deleted", func(t *testing.T) { c.checkUninstall(t) })
	if t.Failed() {
		t.Logf("kube-controller-manager:\n%s", c.kcm.Process.Describe())
		for _, r := range c.replicas {
			t.Logf("replica:\n%s", r.Describe())
		}
	}
}

// withControllerManager starts kube-controller-manager beside a's kube-apiserver, stopped when
// t ends.
func withControllerManager(t *testing.T, bins cluster.Binaries, a *aggregation) *inCluster {
	t.Helper()
	kcm, err := cluster.StartKubeControllerManager(bins.KubeControllerManager, a.work, a.kas)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(kcm.Stop)
	cfg, err := a.kas.AdminConfig()
	if err != nil {
		t.Fatal(err)
	}
	return &inCluster{aggregation: a, kcm: kcm, cs: kubernetes.NewForConfigOrDie(cfg), top: t}
}

func (c *inCluster) namespace(t *testing.T, name string) {
	t.Helper()
	if _, err := c.cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// flunder creates a Flunder in version gvr.Version of namespace ns.
func (c *inCluster) flunder(t *testing.T, gvr schema.GroupVersionResource, ns, name string, meta map[string]any) *unstructured.Unstructured {
	t.Helper()
	m := map[string]any{"name": name}
	for k, v := range meta {
		m[k] = v
	}
	obj, err := c.dyn.Resource(gvr).Namespace(ns).Create(context.Background(), flunderObject(gvr, m), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating flunder %s/%s in %s: %v", ns, name, gvr.Version, err)
	}
	return obj
}

// namespaceGone waits until namespace ns no longer exists.
func (c *inCluster) namespaceGone(t *testing.T, ns string, timeout time.Duration) {
	t.Helper()
	start := time.Now()
	err := poll(timeout, func() error {
		n, err := c.cs.CoreV1().Namespaces().Get(context.Background(), ns, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		return fmt.Errorf("namespace %s is %s: %v", ns, n.Status.Phase, n.Status.Conditions)
	})
	if err != nil {
		t.Fatalf("the namespace was not deleted: %v", err)
	}
	t.Logf("namespace %s deleted %s after its deletion", ns, time.Since(start).Round(time.Millisecond))
}

// noFlunders checks, through every served version, that no Flunder is left in namespace ns
// (waiting for kube-apiserver to reach the server again after a restart).
func (c *inCluster) noFlunders(t *testing.T, ns string) {
	t.Helper()
	for _, gvr := range []schema.GroupVersionResource{flundersGVR, flundersV1beta1} {
		err := poll(60*time.Second, func() error {
			list, err := c.dyn.Resource(gvr).Namespace(ns).List(context.Background(), metav1.ListOptions{})
			if err != nil {
				return err
			}
			if len(list.Items) != 0 {
				return stopPolling{fmt.Errorf("%d flunders left", len(list.Items))}
			}
			return nil
		})
		if err != nil {
			t.Errorf("flunders of namespace %s (%s): %v", ns, gvr.Version, err)
		}
	}
}

func (c *inCluster) checkNamespaceDeletion(t *testing.T) {
	ctx := context.Background()
	const ns = "doomed"
	c.namespace(t, ns)
	c.flunder(t, flundersGVR, ns, "old-version", nil)
	c.flunder(t, flundersV1beta1, ns, "new-version", nil)
	held := c.flunder(t, flundersV1beta1, ns, "held", map[string]any{"finalizers": []any{"example.com/hold"}})
	if err := c.cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	// The controller deletes them all; the one with a finalizer waits for it, as the namespace
	// does for it, and the namespace says so.
	err := poll(60*time.Second, func() error {
		obj, err := c.dyn.Resource(flundersV1beta1).Namespace(ns).Get(ctx, held.GetName(), metav1.GetOptions{})
		if err != nil {
			return err
		}
		if obj.GetDeletionTimestamp() == nil {
			return fmt.Errorf("flunder %s is not being deleted", held.GetName())
		}
		n, err := c.cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, cond := range n.Status.Conditions {
			if cond.Type == corev1.NamespaceContentRemaining && cond.Status == corev1.ConditionTrue {
				return nil
			}
			if cond.Type == corev1.NamespaceDeletionContentFailure && cond.Status == corev1.ConditionTrue {
				return stopPolling{fmt.Errorf("the namespace controller failed: %s", cond.Message)}
			}
		}
		return fmt.Errorf("namespace conditions: %v", n.Status.Conditions)
	})
	if err != nil {
		t.Fatalf("the namespace controller did not delete the namespace's flunders: %v", err)
	}
	list, err := c.dyn.Resource(flundersGVR).Namespace(ns).List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 {
		t.Errorf("while the finalizer holds: %v, %d flunders, want only %s", err, len(list.Items), held.GetName())
	}
	if _, err := c.dyn.Resource(flundersV1beta1).Namespace(ns).Patch(ctx, held.GetName(), types.MergePatchType,
		[]byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	c.namespaceGone(t, ns, 60*time.Second)
	c.noFlunders(t, ns)
}

func (c *inCluster) checkNamespaceDeletionServerDown(t *testing.T) {
	ctx := context.Background()
	const ns = "doomed-while-down"
	c.namespace(t, ns)
	c.flunder(t, flundersV1beta1, ns, "a", nil)
	for _, r := range c.replicas {
		r.Stop(15 * time.Second)
	}
	if err := c.cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	err := poll(90*time.Second, func() error {
		n, err := c.cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, cond := range n.Status.Conditions {
			if cond.Type == corev1.NamespaceDeletionDiscoveryFailure && cond.Status == corev1.ConditionTrue {
				if !strings.Contains(cond.Message, wardleGroup) {
					return stopPolling{fmt.Errorf("NamespaceDeletionDiscoveryFailure does not name %s: %s", wardleGroup, cond.Message)}
				}
				t.Logf("while the server is down: %s: %s", cond.Type, cond.Message)
				return nil
			}
		}
		return fmt.Errorf("namespace %s is %s: %v", ns, n.Status.Phase, n.Status.Conditions)
	})
	if err != nil {
		t.Fatalf("a namespace deleted while the server is down should report NamespaceDeletionDiscoveryFailure: %v", err)
	}
	// kube-apiserver marks the APIServices unavailable too: once it has, a later Available is
	// the restarted replicas'.
	c.admin.ok(t, append([]string{"wait", "--for=condition=Available=False", "--timeout=120s"}, c.apiServices...)...)
	for i, port := range c.ports {
		c.replicas[i] = c.startReplica(c.top, i+len(c.ports), port)
	}
	c.namespaceGone(t, ns, 120*time.Second)
	c.replicasReady(t)
	c.noFlunders(t, ns)
}

// replicasReady waits until every replica answers /readyz, then for the APIServices.
func (c *inCluster) replicasReady(t *testing.T) {
	t.Helper()
	hc := c.replicaClient(t)
	for _, port := range c.ports {
		err := poll(90*time.Second, func() error {
			status, body, err := doRequest(hc, mustRequest(t, "https://127.0.0.1:"+strconv.Itoa(port)+"/readyz"))
			if err != nil {
				return err
			}
			if status != http.StatusOK {
				return fmt.Errorf("/readyz: %d %s", status, firstLine(body))
			}
			return nil
		})
		if err != nil {
			t.Fatalf("the replica on port %d is not ready: %v", port, err)
		}
	}
	c.admin.ok(t, append([]string{"wait", "--for=condition=Available", "--timeout=90s"}, c.apiServices...)...)
}

func mustRequest(t *testing.T, url string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// checkGarbageCollection has the garbage collector follow ownerReferences from ConfigMaps to
// Flunders and from Flunders to ConfigMaps, with each propagation policy.
func (c *inCluster) checkGarbageCollection(t *testing.T) {
	ctx := context.Background()
	const ns = "default"
	flunders := c.dyn.Resource(flundersV1beta1).Namespace(ns)
	configMaps := c.cs.CoreV1().ConfigMaps(ns)
	for _, policy := range []metav1.DeletionPropagation{metav1.DeletePropagationBackground, metav1.DeletePropagationForeground, metav1.DeletePropagationOrphan} {
		suffix := strings.ToLower(string(policy))
		ref := func(apiVersion, kind, name string, uid types.UID) []any {
			return []any{map[string]any{"apiVersion": apiVersion, "kind": kind, "name": name, "uid": string(uid), "blockOwnerDeletion": true}}
		}

		// A ConfigMap owns a Flunder.
		owner, err := configMaps.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner-" + suffix}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		c.flunder(t, flundersV1beta1, ns, "owned-"+suffix, map[string]any{"ownerReferences": ref("v1", "ConfigMap", owner.Name, owner.UID)})
		// A Flunder owns a ConfigMap.
		fOwner := c.flunder(t, flundersV1beta1, ns, "owner-"+suffix, nil)
		if _, err := configMaps.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owned-" + suffix, OwnerReferences: []metav1.OwnerReference{{
			APIVersion: flundersV1beta1.GroupVersion().String(), Kind: "Flunder", Name: fOwner.GetName(), UID: fOwner.GetUID(), BlockOwnerDeletion: ptrTo(true),
		}}}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}

		if err := configMaps.Delete(ctx, owner.Name, metav1.DeleteOptions{PropagationPolicy: &policy}); err != nil {
			t.Fatal(err)
		}
		if err := flunders.Delete(ctx, fOwner.GetName(), metav1.DeleteOptions{PropagationPolicy: &policy}); err != nil {
			t.Fatal(err)
		}
		err = poll(60*time.Second, func() error {
			// The owners go in any case.
			if _, err := configMaps.Get(ctx, owner.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("owner ConfigMap: %v", err)
			}
			if _, err := flunders.Get(ctx, fOwner.GetName(), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("owner Flunder: %v", err)
			}
			f, ferr := flunders.Get(ctx, "owned-"+suffix, metav1.GetOptions{})
			cm, cerr := configMaps.Get(ctx, "owned-"+suffix, metav1.GetOptions{})
			if policy == metav1.DeletePropagationOrphan {
				if ferr != nil || cerr != nil {
					return stopPolling{fmt.Errorf("orphaned dependents were deleted: %v, %v", ferr, cerr)}
				}
				if len(f.GetOwnerReferences()) != 0 || len(cm.OwnerReferences) != 0 {
					return fmt.Errorf("orphaned dependents still name their owners: %v, %v", f.GetOwnerReferences(), cm.OwnerReferences)
				}
				return nil
			}
			if !apierrors.IsNotFound(ferr) || !apierrors.IsNotFound(cerr) {
				return fmt.Errorf("dependents not collected: flunder %v, configmap %v", ferr, cerr)
			}
			return nil
		})
		if err != nil {
			t.Errorf("%s propagation: %v", policy, err)
		}
	}
}

// quotaRefusal is kube-apiserver's message when a create would exceed a quota.
var quotaRefusal = regexp.MustCompile(`^(.*) is forbidden: exceeded quota: (\S+), requested: (\S+)=1, used: (\S+)=1, limited: (\S+)=1$`)

// checkQuota gives a namespace a quota of one Flunder and one ConfigMap: kube-controller-manager
// counts both, and a second of each is refused, the Flunder by the generated server with the
// message kube-apiserver gives for the ConfigMap; once the Flunder is deleted, another fits.
func (c *inCluster) checkQuota(t *testing.T) {
	ctx := context.Background()
	const ns = "quota"
	c.namespace(t, ns)
	count := corev1.ResourceName("count/flunders." + wardleGroup)
	if _, err := c.cs.CoreV1().ResourceQuotas(ns).Create(ctx, &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: "one-each"},
		Spec:       corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{count: resource.MustParse("1"), "count/configmaps": resource.MustParse("1")}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	used := func(want int64) error {
		return poll(60*time.Second, func() error {
			q, err := c.cs.CoreV1().ResourceQuotas(ns).Get(ctx, "one-each", metav1.GetOptions{})
			if err != nil {
				return err
			}
			got, ok := q.Status.Used[count]
			if !ok || got.Value() != want {
				return fmt.Errorf("status.used: %v, want %s=%d", q.Status.Used, count, want)
			}
			return nil
		})
	}
	if err := used(0); err != nil {
		t.Fatalf("kube-controller-manager did not count the namespace's flunders: %v", err)
	}

	c.flunder(t, flundersV1beta1, ns, "first", nil)
	if err := used(1); err != nil {
		t.Errorf("after one flunder: %v", err)
	}
	_, ferr := c.dyn.Resource(flundersV1beta1).Namespace(ns).Create(ctx, flunderObject(flundersV1beta1, map[string]any{"name": "second"}), metav1.CreateOptions{})
	if !apierrors.IsForbidden(ferr) {
		t.Fatalf("a second flunder beyond the quota: %v, want 403 Forbidden", ferr)
	}
	if _, err := c.cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "first"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, cerr := c.cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "second"}}, metav1.CreateOptions{})
	if !apierrors.IsForbidden(cerr) {
		t.Fatalf("a second configmap beyond the quota: %v, want 403 Forbidden", cerr)
	}
	f, k := quotaRefusal.FindStringSubmatch(ferr.Error()), quotaRefusal.FindStringSubmatch(cerr.Error())
	if f == nil || k == nil {
		t.Fatalf("refusals not in kube-apiserver's form %s:\ngenerated server: %v\nkube-apiserver:   %v", quotaRefusal, ferr, cerr)
	}
	if f[1] != `flunders.wardle.example.com "second"` || f[2] != "one-each" || f[3] != string(count) || f[4] != string(count) || f[5] != string(count) {
		t.Errorf("the generated server's refusal names the wrong things: %v", ferr)
	}
	t.Logf("generated server: %v\nkube-apiserver:   %v", ferr, cerr)

	if err := c.dyn.Resource(flundersV1beta1).Namespace(ns).Delete(ctx, "first", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := used(0); err != nil {
		t.Errorf("kube-controller-manager did not release the deleted flunder's quota: %v", err)
	}
	c.flunder(t, flundersV1beta1, ns, "third", nil)
}

// checkStorageMigration stores Flunders in v1alpha1, as the server did before its storage
// version became v1beta1 (the bytes an earlier build wrote, put into storage as they were),
// then creates a StorageVersionMigration of flunders with kubectl: it succeeds, and storage
// holds every object in v1beta1 afterwards.
// flunderStorage is the server's storage seen from below, as an operator sees it.
type flunderStorage interface {
	// stored returns the storage key of each Flunder of namespace ns and the apiVersion its
	// bytes are encoded in.
	stored(ctx context.Context, t *testing.T, ns string) map[string]string
	// put replaces the bytes stored at key.
	put(ctx context.Context, t *testing.T, key string, data []byte)
}

// etcdStorage is the server's etcd, read and written with etcd's client.
type etcdStorage struct{ etcd *cluster.Etcd }

func (e etcdStorage) client(t *testing.T) *clientv3.Client {
	t.Helper()
	tlsConfig, err := e.etcd.TLSConfig()
	if err != nil {
		t.Fatal(err)
	}
	client, err := clientv3.New(clientv3.Config{Endpoints: e.etcd.Endpoints, TLS: tlsConfig, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	return client
}

func (e etcdStorage) stored(ctx context.Context, t *testing.T, ns string) map[string]string {
	t.Helper()
	resp, err := e.client(t).Get(ctx, "/registry/", clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, kv := range resp.Kvs {
		if key := string(kv.Key); strings.Contains(key, "/"+wardleGroup+"/flunders/"+ns+"/") {
			var tm metav1.TypeMeta
			if err := json.Unmarshal(kv.Value, &tm); err != nil {
				t.Fatalf("etcd key %s is not JSON: %v", key, err)
			}
			out[key] = tm.APIVersion
		}
	}
	return out
}

func (e etcdStorage) put(ctx context.Context, t *testing.T, key string, data []byte) {
	t.Helper()
	if _, err := e.client(t).Put(ctx, key, string(data)); err != nil {
		t.Fatal(err)
	}
}

func (c *inCluster) checkStorageMigration(t *testing.T, storage flunderStorage) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const ns = "migrated"
	c.namespace(t, ns)
	stored := func() map[string]string { return storage.stored(ctx, t, ns) }
	const objects = 5
	for i := range objects {
		c.flunder(t, flundersGVR, ns, fmt.Sprintf("m-%d", i), nil)
	}
	old := flundersGVR.GroupVersion().String()
	for key := range stored() {
		name := key[strings.LastIndex(key, "/")+1:]
		obj, err := c.dyn.Resource(flundersGVR).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		obj.SetResourceVersion("") // etcd's revision is the resourceVersion; it is never stored
		data, err := obj.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		storage.put(ctx, t, key, data)
	}
	before := stored()
	if len(before) != objects {
		t.Fatalf("storage holds %d flunders of namespace %s, want %d: %v", len(before), ns, objects, before)
	}
	for key, v := range before {
		if v != old {
			t.Fatalf("stored key %s holds %s, want the old version %s", key, v, old)
		}
	}

	c.admin.okStdin(t, fmt.Sprintf(`apiVersion: storagemigration.k8s.io/v1
kind: StorageVersionMigration
metadata:
  name: flunders
spec:
  resource: {group: %s, resource: flunders}
`, wardleGroup), "create", "-f", "-")
	r := c.admin.run("", "wait", "--for=condition=Succeeded", "--timeout=90s", "storageversionmigration/flunders")
	if r.ExitCode != 0 {
		t.Fatalf("the StorageVersionMigration did not succeed:\n%s\n%s", r, c.admin.run("", "get", "-o", "yaml", "storageversionmigration/flunders").Stdout)
	}
	after := stored()
	for key := range before {
		if after[key] != flundersV1beta1.GroupVersion().String() {
			t.Errorf("after the migration stored key %s holds %q, want the storage version %s", key, after[key], flundersV1beta1.GroupVersion())
		}
	}
}

// checkUninstall uninstalls as the project's make undeploy does, APIServices first, while a
// namespace holding a Flunder is being deleted, and stops the replicas as the Deployment's
// deletion would: the namespace is deleted, none is left Terminating.
func (c *inCluster) checkUninstall(t *testing.T) {
	ctx := context.Background()
	const ns = "deleted-during-uninstall"
	c.namespace(t, ns)
	c.flunder(t, flundersV1beta1, ns, "a", map[string]any{"finalizers": []any{"example.com/hold"}})
	if err := c.cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	c.admin.ok(t, "delete", "-f", filepath.Join(c.work, "wardle", "config", "generated", "apiservice.yaml"), "--ignore-not-found")
	c.admin.ok(t, "delete", "-k", filepath.Join(c.work, "overlay"), "--ignore-not-found")
	for _, r := range c.replicas {
		r.Stop(15 * time.Second)
	}
	c.namespaceGone(t, ns, 60*time.Second)
	// The server's own namespace goes with the uninstall.
	err := poll(60*time.Second, func() error {
		namespaces, err := c.cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		for _, n := range namespaces.Items {
			if n.Status.Phase == corev1.NamespaceTerminating {
				return fmt.Errorf("namespace %s is Terminating: %v", n.Name, n.Status.Conditions)
			}
		}
		return nil
	})
	if err != nil {
		t.Errorf("after the uninstall: %v", err)
	}
}

// checkRollingRestart restarts the replicas one after the other, as a Deployment's rolling
// update does, while namespaces holding Flunders are deleted, Flunders owned by ConfigMaps lose
// their owners, and Flunders are created: every create acknowledged is kept, every namespace is
// deleted and every dependent collected.
func (c *inCluster) checkRollingRestart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const namespaces = 4
	var doomed []string
	var owned []string // namespace/name of flunders whose owner is deleted
	for i := range namespaces {
		ns := fmt.Sprintf("rolling-%d", i)
		c.namespace(t, ns)
		doomed = append(doomed, ns)
		for j := range 3 {
			c.flunder(t, flundersV1beta1, ns, fmt.Sprintf("f-%d", j), nil)
		}
	}
	const keep = "rolling-kept"
	c.namespace(t, keep)
	configMaps := c.cs.CoreV1().ConfigMaps(keep)
	var owners []string
	for i := range 5 {
		owner, err := configMaps.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("owner-%d", i)}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("owned-%d", i)
		c.flunder(t, flundersV1beta1, keep, name, map[string]any{"ownerReferences": []any{map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap", "name": owner.Name, "uid": string(owner.UID)}}})
		owners, owned = append(owners, owner.Name), append(owned, name)
	}

	// Creates go on through the whole restart.
	var mu sync.Mutex
	var acked []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ctx.Err() == nil; i++ {
			name := fmt.Sprintf("during-%04d", i)
			cctx, ccancel := context.WithTimeout(ctx, 10*time.Second)
			_, err := c.dyn.Resource(flundersV1beta1).Namespace(keep).Create(cctx, flunderObject(flundersV1beta1, map[string]any{"name": name}), metav1.CreateOptions{})
			ccancel()
			if err == nil {
				mu.Lock()
				acked = append(acked, name)
				mu.Unlock()
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()

	for i, ns := range doomed {
		if err := c.cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		if i < len(owners) {
			if err := configMaps.Delete(ctx, owners[i], metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if i < len(c.replicas) {
			// One replica at a time: stopped (it drains), started again, ready before the next.
			c.replicas[i].Stop(15 * time.Second)
			c.replicas[i] = c.startReplica(c.top, 10+i, c.ports[i])
			c.replicasReady(t)
		}
	}
	for _, name := range owners[len(doomed):] {
		if err := configMaps.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(2 * time.Second)
	cancel()
	<-done

	for _, ns := range doomed {
		c.namespaceGone(t, ns, 90*time.Second)
		c.noFlunders(t, ns)
	}
	err := poll(60*time.Second, func() error {
		for _, name := range owned {
			if _, err := c.dyn.Resource(flundersV1beta1).Namespace(keep).Get(context.Background(), name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("flunder %s, whose owner is deleted: %v", name, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Errorf("dependents not collected: %v", err)
	}
	list, err := c.dyn.Resource(flundersV1beta1).Namespace(keep).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, obj := range list.Items {
		have[obj.GetName()] = true
	}
	var missing []string
	for _, name := range acked {
		if !have[name] {
			missing = append(missing, name)
		}
	}
	t.Logf("%d creates acknowledged during the rolling restart", len(acked))
	if len(acked) == 0 || len(missing) > 0 {
		t.Errorf("%d creates acknowledged, %d of them missing after the rolling restart: %v", len(acked), len(missing), missing)
	}
}
