package e2e

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// k8s.io/api's own samples: testdata/HEAD holds one object of every kind, every field set (its
// round-trip fixtures). Each is created in kube-apiserver and in the generated server, with the
// metadata a create may carry; both must answer alike, and what the generated server accepts
// must read back as sent.

// fixtureResult is what one server answered to a fixture's create.
type fixtureResult struct {
	// refused is the server's error, "" when it created the object.
	refused string
	// readBack is where the object read back differs from the fixture sent ("" for nowhere),
	// when it was created.
	readBack string
}

// kubernetesFixtures are the fixtures of the kinds served in the group-versions of resources
// (both servers' discovery of them) that take a create and can be read back, by
// "group/version Kind", each as the create sends it.
func kubernetesFixtures(t *testing.T, apiDir string, resources map[string]map[string]metav1.APIResource) map[string]*unstructured.Unstructured {
	t.Helper()
	out := map[string]*unstructured.Unstructured{}
	for gv, rs := range resources {
		group, version, _ := strings.Cut(gv, "/")
		for _, r := range rs {
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "create") || !slices.Contains(r.Verbs, "get") {
				continue // a subresource, or a create-only review: nothing to read back
			}
			data, err := os.ReadFile(filepath.Join(apiDir, "testdata", "HEAD", group+"."+version+"."+r.Kind+".yaml"))
			if err != nil {
				t.Errorf("k8s.io/api has no fixture of %s %s: %v", gv, r.Kind, err)
				continue
			}
			obj := &unstructured.Unstructured{}
			if err := yaml.Unmarshal(data, &obj.Object); err != nil {
				t.Fatalf("the fixture of %s %s: %v", gv, r.Kind, err)
			}
			// What a create may carry of the fixture's metadata: a valid name in an existing
			// namespace, its labels and annotations; no status, which a create resets.
			meta := map[string]any{"name": strings.ToLower(r.Kind) + "-fixture"}
			if r.Namespaced {
				meta["namespace"] = "default"
			}
			for _, k := range []string{"labels", "annotations"} {
				if v, ok := obj.Object["metadata"].(map[string]any)[k]; ok {
					meta[k] = v
				}
			}
			obj.Object["metadata"] = meta
			delete(obj.Object, "status")
			out[gv+" "+r.Kind] = obj
		}
	}
	return out
}

// createFixtures creates each fixture in the server cfg names and reads it back.
func createFixtures(t *testing.T, cfg *rest.Config, fixtures map[string]*unstructured.Unstructured, resources map[string]map[string]metav1.APIResource) map[string]fixtureResult {
	t.Helper()
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	out := map[string]fixtureResult{}
	for _, key := range slices.Sorted(maps.Keys(fixtures)) {
		gv, kind, _ := strings.Cut(key, " ")
		var resource metav1.APIResource
		for _, r := range resources[gv] {
			if r.Kind == kind && !strings.Contains(r.Name, "/") {
				resource = r
			}
		}
		gvr := schema.FromAPIVersionAndKind(gv, kind).GroupVersion().WithResource(resource.Name)
		var ri dynamic.ResourceInterface = dyn.Resource(gvr)
		if resource.Namespaced {
			ri = dyn.Resource(gvr).Namespace("default")
		}
		sent := fixtures[key].DeepCopy()
		created, err := ri.Create(ctx, sent.DeepCopy(), metav1.CreateOptions{})
		if err != nil {
			out[key] = fixtureResult{refused: firstLine(err.Error())}
			continue
		}
		got, err := ri.Get(ctx, created.GetName(), metav1.GetOptions{})
		switch {
		case err != nil:
			out[key] = fixtureResult{readBack: "get: " + firstLine(err.Error())}
		default:
			out[key] = fixtureResult{readBack: sentDiff(sent, got)}
		}
		_ = ri.Delete(ctx, created.GetName(), metav1.DeleteOptions{})
	}
	return out
}

// compareFixtures wants the generated server to accept every fixture kube-apiserver accepts and
// read it back as sent; a fixture kube-apiserver refuses (its hand-written validation) and the
// generated server accepts is counted, not failed. It returns the number of fixtures each server
// accepted and how many kube-apiserver refused that the generated server accepted.
func compareFixtures(t *testing.T, kas, ours map[string]fixtureResult) (accepted, kasOnlyRefused int) {
	t.Helper()
	var onlyKAS []string
	for _, key := range slices.Sorted(maps.Keys(kas)) {
		k, o := kas[key], ours[key]
		switch {
		case k.refused == "" && o.refused != "":
			t.Errorf("fixture %s: kube-apiserver creates it, the generated server refuses it: %s", key, o.refused)
		case o.refused == "" && o.readBack != "":
			t.Errorf("fixture %s: the generated server reads it back otherwise: %s", key, o.readBack)
		case k.refused != "" && o.refused == "":
			onlyKAS = append(onlyKAS, fmt.Sprintf("%s (%s)", key, k.refused))
			accepted++
		case o.refused == "":
			accepted++
		}
	}
	for _, f := range onlyKAS {
		t.Logf("refused by kube-apiserver's hand-written validation only: %s", f)
	}
	return accepted, len(onlyKAS)
}
