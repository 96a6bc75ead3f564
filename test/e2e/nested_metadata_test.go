package e2e

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// rolloutTypes is a kubebuilder-marked kind shaped as Argo Rollouts' Rollout: a pod template,
// a plain ObjectMeta field and a part kept as raw JSON (which makes the server prune the
// object), and a CEL rule that reads the template's labels, as a CRD with controller-gen's
// embedded metadata allows.
const rolloutTypes = `package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type Rollout struct {
	metav1.TypeMeta   ` + bt + `json:",inline"` + bt + `
	metav1.ObjectMeta ` + bt + `json:"metadata,omitempty"` + bt + `

	Spec   RolloutSpec   ` + bt + `json:"spec,omitempty"` + bt + `
	Status RolloutStatus ` + bt + `json:"status,omitempty"` + bt + `
}

// +kubebuilder:validation:XValidation:rule="!has(self.template.metadata.labels) || !('forbidden' in self.template.metadata.labels)",message="the template may not carry the label forbidden"
type RolloutSpec struct {
	Template corev1.PodTemplateSpec ` + bt + `json:"template"` + bt + `
	// +optional
	Meta metav1.ObjectMeta ` + bt + `json:"meta,omitempty"` + bt + `
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Config *runtime.RawExtension ` + bt + `json:"config,omitempty"` + bt + `
}

type RolloutStatus struct {
	Replicas int32 ` + bt + `json:"replicas,omitempty"` + bt + `
}

// +kubebuilder:object:root=true
type RolloutList struct {
	metav1.TypeMeta ` + bt + `json:",inline"` + bt + `
	metav1.ListMeta ` + bt + `json:"metadata,omitempty"` + bt + `
	Items           []Rollout ` + bt + `json:"items"` + bt + `
}
`

// TestNestedObjectMeta: every field of an ObjectMeta below the top level survives a write and a
// read (create and update through the REST API), as kube-apiserver keeps a Deployment's
// template; the served OpenAPI describes its fields; a CEL rule on the template's labels
// compiles and is enforced, as in a CRD with embedded metadata.
func TestNestedObjectMeta(t *testing.T) {
	tc := tools(t)
	work := t.TempDir()
	proj := initProject(t, tc, work, "example.com/rollouts")
	dir := filepath.Join(proj, "pkg", "apis", "rollouts", "v1alpha1")
	writeFile(t, filepath.Join(dir, "doc.go"), "// +groupName=rollouts.example.com\npackage v1alpha1\n")
	writeFile(t, filepath.Join(dir, "rollout_types.go"), goSrc(rolloutTypes))
	mustSucceed(t, runCmd(cmdOpts{Dir: proj, Env: goEnv, Timeout: buildTimeout}, tc.apigen, "generate"))
	k, stop := serve(t, tc, proj, work)
	defer stop()

	cfg := restConfig(t, k.kubeconfig)
	rollouts := dynamicFor(t, k.kubeconfig).Resource(schema.GroupVersionResource{Group: "rollouts.example.com", Version: "v1alpha1", Resource: "rollouts"}).Namespace("default")
	meta := func(app string) map[string]any {
		return map[string]any{
			"name": "pod-" + app, "generateName": app + "-", "namespace": "default",
			"labels":          map[string]any{"app": app, "example.com/tier": "web"},
			"annotations":     map[string]any{"example.com/note": "kept " + app},
			"finalizers":      []any{"example.com/cleanup"},
			"ownerReferences": []any{map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": "6f1d3b2a-0000-4000-8000-000000000001"}},
		}
	}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "rollouts.example.com/v1alpha1", "kind": "Rollout",
		"metadata": map[string]any{"name": "canary"},
		"spec": map[string]any{
			"template": map[string]any{
				"metadata": meta("canary"),
				"spec":     map[string]any{"containers": []any{map[string]any{"name": "app", "image": "nginx:1.27"}}},
			},
			"meta":   meta("plain"),
			"config": map[string]any{"steps": []any{map[string]any{"setWeight": int64(20)}}},
		},
	}}
	ctx := context.Background()
	created, err := rollouts.Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	readBack := func(when string, sent *unstructured.Unstructured) *unstructured.Unstructured {
		t.Helper()
		got, err := rollouts.Get(ctx, "canary", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get %s: %v", when, err)
		}
		for _, path := range []string{"template.metadata", "meta", "config"} {
			want, have := field(sent.Object["spec"].(map[string]any), path), field(got.Object["spec"].(map[string]any), path)
			if diff := cmp.Diff(pruneEmpty(want), pruneEmpty(have)); diff != "" {
				t.Errorf("%s: spec.%s read back differs (-sent +read):\n%s", when, path, diff)
			}
		}
		return got
	}
	readBack("after create", obj)
	if field(created.Object, "spec.template.metadata.labels.app") != "canary" {
		t.Errorf("the create's answer lacks the template's labels: %v", field(created.Object, "spec.template.metadata"))
	}

	// An update keeps them too, and changes what it changes.
	got := readBack("before update", obj)
	unstructured.SetNestedField(got.Object, "stable", "spec", "template", "metadata", "labels", "app")
	unstructured.SetNestedField(got.Object, "changed", "spec", "meta", "annotations", "example.com/note")
	if _, err := rollouts.Update(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update: %v", err)
	}
	readBack("after update", got)

	// The CEL rule reads the template's labels.
	bad := obj.DeepCopy()
	bad.SetName("forbidden")
	unstructured.SetNestedField(bad.Object, "yes", "spec", "template", "metadata", "labels", "forbidden")
	if _, err := rollouts.Create(ctx, bad, metav1.CreateOptions{}); err == nil || !strings.Contains(err.Error(), "the template may not carry the label forbidden") {
		t.Errorf("a template labelled forbidden: want the CEL rule's refusal, got %v", err)
	}

	// The served OpenAPI describes the nested metadata's fields.
	doc := servedOpenAPI(t, cfg, "rollouts.example.com/v1alpha1", "Rollout")
	if doc == nil {
		t.Fatal("the served OpenAPI v3 has no Rollout")
	}
	prop := func(node map[string]any, name string) map[string]any {
		props, _ := doc.resolve(node)["properties"].(map[string]any)
		p, _ := props[name].(map[string]any)
		return p
	}
	spec := prop(doc.node, "spec")
	for path, node := range map[string]map[string]any{"spec.template.metadata": prop(prop(spec, "template"), "metadata"), "spec.meta": prop(spec, "meta")} {
		for name, want := range map[string]string{"name": "string", "namespace": "string", "labels": "object/string", "annotations": "object/string", "finalizers": "array/string"} {
			p := doc.resolve(prop(node, name))
			have, _ := p["type"].(string)
			if inner, ok := p["additionalProperties"].(map[string]any); ok {
				elem, _ := doc.resolve(inner)["type"].(string)
				have += "/" + elem
			}
			if items, ok := p["items"].(map[string]any); ok {
				elem, _ := doc.resolve(items)["type"].(string)
				have += "/" + elem
			}
			if have != want {
				t.Errorf("served OpenAPI %s.%s: type %q, want %q", path, name, have, want)
			}
		}
	}
}
