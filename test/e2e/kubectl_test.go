package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// checkKubectl drives what kubectl users rely on for any resource, on examples/wardle's
// Flunders: the names discovery gives them (short name, singular, the wardle and all
// categories), delete --all, finalizers holding a deletion, graceful deletion options,
// --dry-run=server writing nothing, --chunk-size pagination, delete of a collection and a 409 for a stale
// resourceVersion.
func checkKubectl(t *testing.T, k *kubectl) {
	t.Helper()
	const ns = "kubectl"
	flunder := func(name, extra string) string {
		return fmt.Sprintf("apiVersion: %s/v1beta1\nkind: Flunder\nmetadata: {name: %s, namespace: %s%s}\nspec: {replicas: 1}\n", wardleGroup, name, ns, extra)
	}
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		k.okStdin(t, flunder(name, ""), "create", "-f", "-")
	}
	all := []string{"a", "b", "c", "d", "e"}

	// Discovery's names: short name, singular, categories.
	for _, resource := range []string{"fl", "flunder", "wardle", "all"} {
		// (The wardle category holds the cluster-scoped fischers too.)
		if got := k.names(t, resource, "-n", ns); !slices.Equal(got, all) && (resource != "wardle" || !containsAll(got, all)) {
			t.Errorf("kubectl get %s -n %s: %v, want %v", resource, ns, got, all)
		}
	}

	// --chunk-size: kubectl lists in pages of 2 and follows the continue token.
	r := mustSucceed(t, k.run("", "get", "flunders", "-n", ns, "--chunk-size=2", "-o", "name", "-v=6"))
	if pages := strings.Count(r.Stderr, "limit=2"); pages != 3 || !strings.Contains(r.Stderr, "continue=") || strings.Count(r.Stdout, "\n") != len(all) {
		t.Errorf("kubectl get --chunk-size=2 of %d flunders: %d requests with limit=2 (want 3, with continue tokens), printed:\n%s", len(all), pages, r.Stdout)
	}

	// --dry-run=server: the server runs create, update, patch and delete and writes nothing.
	rv := k.get(t, "flunder", "a", "-n", ns).GetResourceVersion()
	k.okStdin(t, flunder("dry", ""), "create", "--dry-run=server", "-f", "-")
	k.ok(t, "patch", "flunder", "a", "-n", ns, "--dry-run=server", "--type=merge", "-p", `{"spec":{"replicas":7}}`)
	k.okStdin(t, flunder("a", ", labels: {dry: run}"), "replace", "--dry-run=server", "-f", "-")
	k.ok(t, "delete", "flunder", "b", "-n", ns, "--dry-run=server")
	if got := k.names(t, "flunders", "-n", ns); !slices.Equal(got, all) {
		t.Errorf("after dry runs of create and delete: flunders %v, want %v", got, all)
	}
	if a := k.get(t, "flunder", "a", "-n", ns); a.GetResourceVersion() != rv || a.GetLabels()["dry"] != "" {
		t.Errorf("after dry runs of patch and replace: flunder a has resourceVersion %s (was %s), labels %v", a.GetResourceVersion(), rv, a.GetLabels())
	}

	// A stale resourceVersion is a 409 Conflict.
	k.ok(t, "label", "flunder", "a", "-n", ns, "fresh=yes")
	stale := fmt.Sprintf("apiVersion: %s/v1beta1\nkind: Flunder\nmetadata: {name: a, namespace: %s, resourceVersion: %q}\nspec: {replicas: 3}\n", wardleGroup, ns, rv)
	if r := k.fails(t, stale, "replace", "-f", "-"); !strings.Contains(r.Stderr, "(Conflict)") {
		t.Errorf("kubectl replace with a stale resourceVersion: want a 409 Conflict, got:\n%s", r)
	}

	// Graceful deletion options are accepted: a grace period, a propagation policy, and
	// --force with --grace-period=0. (Foreground and orphan propagation wait for the garbage
	// collector's finalizers, which kube-controller-manager removes, here as for kube-apiserver.)
	k.ok(t, "delete", "flunder", "b", "-n", ns, "--grace-period=5", "--cascade=background", "--wait=false")
	k.ok(t, "delete", "flunder", "c", "-n", ns, "--grace-period=0", "--force")
	err := poll(30*time.Second, func() error {
		if got := k.names(t, "flunders", "-n", ns); !slices.Equal(got, []string{"a", "d", "e"}) {
			return fmt.Errorf("flunders %v", got)
		}
		return nil
	})
	if err != nil {
		t.Errorf("after deleting b (background, grace period 5s) and c (forced): %v, want [a d e]", err)
	}

	// A finalizer holds the deletion: the object stays, marked, until the finalizer is removed.
	k.okStdin(t, flunder("held", ", finalizers: [example.com/hold]"), "create", "-f", "-")
	k.ok(t, "delete", "flunder", "held", "-n", ns, "--wait=false")
	held := k.get(t, "flunder", "held", "-n", ns)
	if held.GetDeletionTimestamp() == nil || !slices.Equal(held.GetFinalizers(), []string{"example.com/hold"}) {
		t.Errorf("a deleted flunder with a finalizer: deletionTimestamp %v, finalizers %v; want it kept, marked for deletion", held.GetDeletionTimestamp(), held.GetFinalizers())
	}
	k.ok(t, "patch", "flunder", "held", "-n", ns, "--type=merge", "-p", `{"metadata":{"finalizers":null}}`)
	if r := k.run("", "get", "flunder", "held", "-n", ns); r.ExitCode == 0 || !strings.Contains(r.Stderr, "NotFound") {
		t.Errorf("after its finalizer is removed, the deleted flunder should be gone:\n%s", r)
	}

	// delete --all deletes every flunder of the namespace.
	r = mustSucceed(t, k.run("", "delete", "flunders", "--all", "-n", ns))
	if got := k.names(t, "flunders", "-n", ns); len(got) != 0 || !strings.Contains(r.Stdout, `"a" deleted`) {
		t.Errorf("after kubectl delete flunders --all: %v are left; it printed:\n%s", got, r)
	}
	// A DELETE of the collection (deletecollection, what controllers and namespace deletion use).
	for _, name := range []string{"p", "q"} {
		k.okStdin(t, flunder(name, ""), "create", "-f", "-")
	}
	k.ok(t, "delete", "--raw", "/apis/"+wardleGroup+"/v1beta1/namespaces/"+ns+"/flunders")
	if got := k.names(t, "flunders", "-n", ns); len(got) != 0 {
		t.Errorf("after DELETE of the flunders collection: %v are left", got)
	}
}

func containsAll(got, want []string) bool {
	for _, w := range want {
		if !slices.Contains(got, w) {
			return false
		}
	}
	return true
}
