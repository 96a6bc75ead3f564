package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// checkScale drives examples/wardle's /scale subresource of Flunders (+apigen:subresource:scale
// in v1beta1, +kubebuilder:subresource:scale in v1alpha1) as kubectl, an autoscaler and a
// server-side applier do: discovery, kubectl get --subresource=scale, kubectl scale with and
// without --resource-version, a conflict for a stale resourceVersion, and the managed fields of
// spec.replicas moving between the Flunder and its Scale under server-side apply.
func checkScale(t *testing.T, k *kubectl, kubeconfig string) {
	t.Helper()
	for _, version := range []string{"v1beta1", "v1alpha1"} {
		var list metav1.APIResourceList
		if err := json.Unmarshal([]byte(k.ok(t, "get", "--raw", "/apis/"+wardleGroup+"/"+version)), &list); err != nil {
			t.Fatal(err)
		}
		var scale *metav1.APIResource
		for i, r := range list.APIResources {
			if r.Name == "flunders/scale" {
				scale = &list.APIResources[i]
			}
		}
		if scale == nil || scale.Group != "autoscaling" || scale.Version != "v1" || scale.Kind != "Scale" || !scale.Namespaced ||
			strings.Join(scale.Verbs, ",") != "get,patch,update" {
			t.Errorf("discovery of %s/%s: flunders/scale is %+v, want group autoscaling, version v1, kind Scale, namespaced, verbs get,patch,update", wardleGroup, version, scale)
		}
	}

	const ns, name = "scaling", "scaled"
	const v1alpha1, v1beta1 = "flunders.v1alpha1." + wardleGroup, "flunders.v1beta1." + wardleGroup
	k.okStdin(t, fmt.Sprintf("apiVersion: %s/v1beta1\nkind: Flunder\nmetadata: {name: %s, namespace: %s}\nspec: {replicas: 2}\n", wardleGroup, name, ns), "create", "-f", "-")
	k.ok(t, "patch", v1beta1, name, "-n", ns, "--subresource=status", "--type=merge", "-p", `{"status":{"replicas":2,"selector":"app=scaled"}}`)

	// The Scale, read through either version.
	for _, resource := range []string{v1beta1, v1alpha1} {
		s := k.get(t, resource, name, "-n", ns, "--subresource=scale")
		got := fmt.Sprintf("%s %s %v %v %v", s.GetAPIVersion(), s.GetKind(), field(s.Object, "spec.replicas"), field(s.Object, "status.replicas"), field(s.Object, "status.selector"))
		if want := "autoscaling/v1 Scale 2 2 app=scaled"; got != want || s.GetName() != name || s.GetResourceVersion() == "" {
			t.Errorf("kubectl get %s %s --subresource=scale: %q (name %q, resourceVersion %q), want %q", resource, name, got, s.GetName(), s.GetResourceVersion(), want)
		}
	}
	replicas := func() string {
		return k.ok(t, "get", v1beta1, name, "-n", ns, "-o", "jsonpath={.spec.replicas} {.metadata.generation}")
	}

	// kubectl scale, then with the current resourceVersion: spec.replicas changes through the
	// main strategy, which bumps the generation.
	k.ok(t, "scale", v1alpha1, name, "-n", ns, "--replicas=3")
	if got := replicas(); got != "3 2" {
		t.Errorf("after kubectl scale --replicas=3: spec.replicas and generation %q, want \"3 2\"", got)
	}
	stale := k.get(t, v1beta1, name, "-n", ns).GetResourceVersion()
	k.ok(t, "scale", v1beta1, name, "-n", ns, "--replicas=4", "--resource-version="+stale)
	if got := replicas(); got != "4 3" {
		t.Errorf("after kubectl scale --replicas=4 --resource-version=%s: spec.replicas and generation %q, want \"4 3\"", stale, got)
	}
	// A stale resourceVersion: kubectl scale checks it itself, and the server refuses it with a
	// 409 Conflict when kubectl sends it.
	r := k.fails(t, "", "scale", v1beta1, name, "-n", ns, "--replicas=5", "--resource-version="+stale)
	if !strings.Contains(r.Stderr, "resource version") {
		t.Errorf("kubectl scale with a stale --resource-version: want an error about the resource version, got:\n%s", r)
	}
	r = k.fails(t, "", "patch", v1beta1, name, "-n", ns, "--subresource=scale", "--type=merge", "-p",
		fmt.Sprintf(`{"metadata":{"resourceVersion":%q},"spec":{"replicas":5}}`, stale))
	if !strings.Contains(r.Stderr, "(Conflict)") {
		t.Errorf("a patch of the scale with a stale resourceVersion: want a 409 Conflict, got:\n%s", r)
	}
	// A negative count, through /scale or on the Flunder itself, is refused as kube-apiserver
	// refuses it for a custom resource with a scale subresource (its customResourceValidator):
	// a 422 at the spec replicas path, though Flunder's schema has no minimum.
	for _, args := range [][]string{
		{"patch", v1beta1, name, "-n", ns, "--subresource=scale", "--type=merge", "-p", `{"spec":{"replicas":-1}}`},
		{"patch", v1beta1, name, "-n", ns, "--type=merge", "-p", `{"spec":{"replicas":-1}}`},
	} {
		r = k.fails(t, "", args...)
		if !strings.Contains(r.Stderr, `Flunder "`+name+`" is invalid: .spec.replicas: Invalid value: -1: should be a non-negative integer`) {
			t.Errorf("kubectl %s: want a 422 at .spec.replicas saying it should be a non-negative integer, got:\n%s", strings.Join(args, " "), r)
		}
	}
	if got := replicas(); got != "4 3" {
		t.Errorf("after the refused scale updates: spec.replicas and generation %q, want \"4 3\"", got)
	}

	// Server-side apply on /scale: kubectl scale owns spec.replicas, so an autoscaler's apply
	// conflicts until it forces; then the autoscaler owns the Flunder's spec.replicas (an Apply
	// entry of the scale subresource in the storage version) and nobody else does, so an apply
	// of spec.replicas on the Flunder itself by another manager conflicts with it.
	dyn := dynamicFor(t, kubeconfig)
	flunders := dyn.Resource(schema.GroupVersionResource{Group: wardleGroup, Version: "v1beta1", Resource: "flunders"}).Namespace(ns)
	ctx := context.Background()
	apply := func(manager string, force bool, body string, subresource ...string) error {
		_, err := flunders.Patch(ctx, name, types.ApplyPatchType, []byte(body), metav1.PatchOptions{FieldManager: manager, Force: &force}, subresource...)
		return err
	}
	scaleTo6 := fmt.Sprintf(`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":%q,"namespace":%q},"spec":{"replicas":6}}`, name, ns)
	if err := apply("autoscaler", false, scaleTo6, "scale"); !apierrors.IsConflict(err) || !strings.Contains(err.Error(), "kubectl") {
		t.Errorf("server-side apply of replicas 6 on /scale over kubectl scale's: want a conflict naming kubectl's manager, got %v", err)
	}
	if err := apply("autoscaler", true, scaleTo6, "scale"); err != nil {
		t.Fatalf("forced server-side apply on /scale: %v", err)
	}
	f, err := flunders.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var owners []string
	for _, m := range f.GetManagedFields() {
		if m.FieldsV1 != nil && strings.Contains(string(m.FieldsV1.Raw), `"f:replicas"`) && strings.Contains(string(m.FieldsV1.Raw), `"f:spec"`) {
			owners = append(owners, fmt.Sprintf("%s %s %s %s %s", m.Manager, m.Operation, m.Subresource, m.APIVersion, m.FieldsV1.Raw))
		}
	}
	want := fmt.Sprintf(`autoscaler Apply scale %s/v1beta1 {"f:spec":{"f:replicas":{}}}`, wardleGroup)
	if replicas, _, _ := unstructured.NestedInt64(f.Object, "spec", "replicas"); replicas != 6 || len(owners) != 1 || owners[0] != want {
		t.Errorf("after the forced apply on /scale: spec.replicas %d, owners of spec.replicas %q; want 6 and only %q", replicas, owners, want)
	}
	main := fmt.Sprintf(`{"apiVersion":"%s/v1beta1","kind":"Flunder","metadata":{"name":%q,"namespace":%q},"spec":{"replicas":7}}`, wardleGroup, name, ns)
	if err := apply("deployer", false, main); !apierrors.IsConflict(err) || !strings.Contains(err.Error(), "autoscaler") {
		t.Errorf("server-side apply of spec.replicas on the Flunder: want a conflict naming the autoscaler, got %v", err)
	}
}
