package server

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/endpoints/request"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
)

// registered is RegisterValidationOptions run before any test binds the feature gates to flags,
// as NewCommand runs it before it makes the flags: an option of the project's own, and one that
// is already a gate of the Kubernetes libraries (which it keeps as it is).
var registered = RegisterValidationOptions([]string{"ApigenTestOption", "DeclarativeValidationBeta"})

// A validation option is the server's feature gate of that name, as kube-apiserver's strategies
// set each option from the gate: off by default for the project's own, enabled by
// --feature-gates; a gate of the libraries keeps its default; an option without a gate is off.
func TestValidationOptionsFollowFeatureGates(t *testing.T) {
	if registered != nil {
		t.Fatal(registered)
	}
	options := func() map[string]bool {
		return NewDeclarativeValidation(nil, "ApigenTestOption", "DeclarativeValidationBeta", "NoSuchGate").options
	}
	want := map[string]bool{"ApigenTestOption": false, "DeclarativeValidationBeta": true, "NoSuchGate": false}
	if got := options(); !maps.Equal(got, want) {
		t.Errorf("by default: got %v, want %v", got, want)
	}
	if spec := utilfeature.DefaultMutableFeatureGate.GetAll()["ApigenTestOption"]; spec.PreRelease != featuregate.Alpha || spec.Default {
		t.Errorf("the option's gate is %+v, want alpha and off by default", spec)
	}
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, "ApigenTestOption", true)
	want["ApigenTestOption"] = true
	if got := options(); !maps.Equal(got, want) {
		t.Errorf("with --feature-gates=ApigenTestOption=true: got %v, want %v", got, want)
	}
	if err := RegisterValidationOptions([]string{"ApigenTestOption"}); err != nil {
		t.Errorf("registering a known option again: %v", err)
	}
}

// crdScale alone decides which scale subresources are checked as a custom resource's: the
// generated code passes every version's, and a structured selector (a workload's
// metav1.LabelSelector) or a version without one is left out.
func TestCRDScale(t *testing.T) {
	scales := map[string]ScalePaths{
		"v1":      {SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".status.selector"},
		"v1beta1": {SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas"},
		"apps":    {SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".spec.selector", LabelSelectorStructured: true},
	}
	if got := crdScale(scales, "v1"); got == nil || got.SpecReplicasPath != ".spec.replicas" || got.StatusReplicasPath != ".status.replicas" ||
		got.LabelSelectorPath == nil || *got.LabelSelectorPath != ".status.selector" {
		t.Errorf("v1: got %+v, want the CRD scale with its string selector", got)
	}
	if got := crdScale(scales, "v1beta1"); got == nil || got.LabelSelectorPath != nil {
		t.Errorf("v1beta1: got %+v, want the CRD scale without a selector", got)
	}
	if got := crdScale(scales, "apps"); got != nil {
		t.Errorf("structured selector: got %+v, want nil (a workload's scale is not checked as a CRD's)", got)
	}
	if got := crdScale(scales, "v2"); got != nil {
		t.Errorf("version without a scale: got %+v, want nil", got)
	}
}

// widget is a kind whose schema its Go type satisfies.
type widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Size              int32 `json:"size,omitempty"`
}

func (w *widget) DeepCopyObject() runtime.Object {
	c := *w
	w.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

// A version whose schema its Go type satisfies skips the schema walk but refuses bad metadata
// with exactly the errors the CRD strategy (the schema path) gives: same fields, causes and
// messages, on create and update.
// So does a version whose schema the type satisfies outside the status, on creates and main
// resource updates.
func TestSchemaSatisfiedByTypeChecksMetadata(t *testing.T) {
	t.Run("whole object", func(t *testing.T) {
		checksMetadata(t, func(k *ValidatedKind) { k.SchemaSatisfiedByType = []string{"v1"} }, func(vv *versionValidation) bool { return vv.typed })
	})
	t.Run("outside status", func(t *testing.T) {
		checksMetadata(t, func(k *ValidatedKind) { k.SchemaSatisfiedOutsideStatus = []string{"v1"} }, func(vv *versionValidation) bool { return vv.typedOutsideStatus })
	})
}

func checksMetadata(t *testing.T, satisfied func(*ValidatedKind), typedPath func(*versionValidation) bool) {
	gv := schema.GroupVersion{Group: "toys.example.com", Version: "v1"}
	scheme := runtime.NewScheme()
	scheme.AddKnownTypes(gv, &widget{})
	kind := ValidatedKind{
		Group: gv.Group, Kind: "widget", Namespaced: true, StatusSubresource: true, StorageVersion: "v1",
		Schemas: map[string]string{"v1": `{"type":"object","properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},"metadata":{"type":"object"},"size":{"type":"integer","format":"int32"}}}`},
	}
	withSchema, err := NewSchemaValidation(scheme, kind)
	if err != nil {
		t.Fatal(err)
	}
	satisfied(&kind)
	typed, err := NewSchemaValidation(scheme, kind)
	if err != nil {
		t.Fatal(err)
	}
	if !typedPath(typed.versions["v1"]) || typedPath(withSchema.versions["v1"]) {
		t.Fatal("the model's decision does not choose the typed path")
	}
	obj := func(name, namespace string, labels map[string]string) *widget {
		return &widget{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels, ResourceVersion: "1"}, Size: 3}
	}
	ctx := context.Background()
	same := func(what string, want, got field.ErrorList, wantErrors bool) {
		t.Helper()
		if wantErrors != (len(want) > 0) {
			t.Errorf("%s: the schema path answers %v", what, want)
		}
		if fmt.Sprint(want) != fmt.Sprint(got) {
			t.Errorf("%s:\n  schema path: %v\n  typed path:  %v", what, want, got)
		}
	}
	for _, c := range []struct {
		what  string
		obj   *widget
		wrong bool
	}{
		{"valid", obj("good", "default", map[string]string{"a": "b"}), false},
		{"name not a DNS subdomain", obj("Bad_Name", "default", nil), true},
		{"no namespace", obj("good", "", nil), true},
		{"bad label", obj("good", "default", map[string]string{"a b": "c"}), true},
	} {
		same("create "+c.what, withSchema.Validate(ctx, c.obj), typed.Validate(ctx, c.obj), c.wrong)
	}
	old := obj("good", "default", nil)
	same("update", withSchema.ValidateUpdate(ctx, obj("good", "default", map[string]string{"a": "b"}), old), typed.ValidateUpdate(ctx, obj("good", "default", map[string]string{"a": "b"}), old), false)
	same("update renaming", withSchema.ValidateUpdate(ctx, obj("other", "default", nil), old), typed.ValidateUpdate(ctx, obj("other", "default", nil), old), true)
	same("status update with a bad label", withSchema.ValidateStatusUpdate(ctx, obj("good", "default", map[string]string{"a b": "c"}), old),
		typed.ValidateStatusUpdate(ctx, obj("good", "default", map[string]string{"a b": "c"}), old), true)
}

// rollout is a kind with typed parts whose schema describes less than they hold (ObjectMeta
// below the top level, as controller-gen writes it with and without embedded metadata) and a
// part kept as raw JSON, which makes Prune walk the object.
type rollout struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Template          podTemplate          `json:"template"`
	Meta              metav1.ObjectMeta    `json:"meta"`
	Object            runtime.RawExtension `json:"object,omitempty"`
}

type podTemplate struct {
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Image             string `json:"image,omitempty"`
}

func (r *rollout) DeepCopyObject() runtime.Object {
	c := *r
	r.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	r.Template.ObjectMeta.DeepCopyInto(&c.Template.ObjectMeta)
	r.Meta.DeepCopyInto(&c.Meta)
	r.Object.DeepCopyInto(&c.Object)
	return &c
}

// Prune drops the unknown fields of the parts the Go type keeps as raw JSON, and nothing of a
// typed part, whatever its schema says of it: a nested ObjectMeta keeps every field, as
// kube-apiserver's built-in types keep a pod template's.
func TestPruneKeepsTypedParts(t *testing.T) {
	gv := schema.GroupVersion{Group: "rollouts.example.com", Version: "v1"}
	scheme := runtime.NewScheme()
	scheme.AddKnownTypes(gv, &rollout{})
	embeddedMeta := `{"type":"object","properties":{"name":{"type":"string"},"namespace":{"type":"string"},` +
		`"labels":{"type":"object","additionalProperties":{"type":"string"}},"annotations":{"type":"object","additionalProperties":{"type":"string"}},` +
		`"finalizers":{"type":"array","items":{"type":"string"}}}}`
	kind := ValidatedKind{
		Group: gv.Group, Kind: "rollout", Namespaced: true, StorageVersion: "v1",
		Schemas: map[string]string{"v1": `{"type":"object","properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},"metadata":{"type":"object"},` +
			`"template":{"type":"object","properties":{"metadata":{"type":"object"},"image":{"type":"string"}}},` +
			`"meta":` + embeddedMeta + `,` +
			`"object":{"type":"object","x-kubernetes-embedded-resource":true,"properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},"metadata":{"type":"object"},` +
			`"spec":{"type":"object","properties":{"known":{"type":"string"}}}}}}}`},
	}
	v, err := NewSchemaValidation(scheme, kind)
	if err != nil {
		t.Fatal(err)
	}
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{
			Name: name, GenerateName: name + "-", Namespace: "default",
			Labels: map[string]string{"app": name}, Annotations: map[string]string{"note": name},
			Finalizers:      []string{"example.com/f"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "p", UID: "u"}},
		}
	}
	obj := &rollout{
		ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "default"},
		Template:   podTemplate{ObjectMeta: meta("template"), Image: "nginx"},
		Meta:       meta("meta"),
		Object:     runtime.RawExtension{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","spec":{"known":"a","unknown":"b"}}`)},
	}
	want := obj.DeepCopyObject().(*rollout)
	want.Object.Raw = []byte(`{"apiVersion":"v1","kind":"ConfigMap","spec":{"known":"a"}}`)
	v.Prune(context.Background(), obj)
	if !equality.Semantic.DeepEqual(obj.Template, want.Template) || !equality.Semantic.DeepEqual(obj.Meta, want.Meta) {
		t.Errorf("typed parts changed:\n  template %+v\n  want     %+v\n  meta %+v\n  want %+v", obj.Template, want.Template, obj.Meta, want.Meta)
	}
	var got, wantObject any
	if err := json.Unmarshal(obj.Object.Raw, &got); err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal(want.Object.Raw, &wantObject)
	if !equality.Semantic.DeepEqual(got, wantObject) {
		t.Errorf("embedded resource: got %s, want %s", obj.Object.Raw, want.Object.Raw)
	}
}

// rolloutV1 and rolloutV2 are one kind in two versions of different Go types, v2 the hub,
// converted by functions written as Cluster API's v1beta1 ones are: v1's names are appended
// to what v2's items hold, as they would be to a new object's.
type rolloutV1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Names             []string             `json:"names,omitempty"`
	Object            runtime.RawExtension `json:"object,omitempty"`
}

type rolloutV2 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Items             []string             `json:"items,omitempty"`
	Object            runtime.RawExtension `json:"object,omitempty"`
}

func (r *rolloutV1) DeepCopyObject() runtime.Object {
	c := *r
	r.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	c.Names = slices.Clone(r.Names)
	r.Object.DeepCopyInto(&c.Object)
	return &c
}

func (r *rolloutV2) DeepCopyObject() runtime.Object {
	c := *r
	r.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	c.Items = slices.Clone(r.Items)
	r.Object.DeepCopyInto(&c.Object)
	return &c
}

// Prune converts what it keeps back from the request's version into a new object, as
// kube-apiserver converts a request, and an object it drops nothing from is left as decoded:
// a conversion that appends to its output does not double the hub's lists either way.
func TestPruneConvertsIntoANewObject(t *testing.T) {
	const group = "rollouts.example.com"
	scheme := runtime.NewScheme()
	for _, v := range []string{"v1", "v2", runtime.APIVersionInternal} {
		var obj runtime.Object = &rolloutV2{}
		if v == "v1" {
			obj = &rolloutV1{}
		}
		scheme.AddKnownTypeWithName(schema.GroupVersionKind{Group: group, Version: v, Kind: "Rollout"}, obj)
	}
	if err := scheme.AddConversionFunc((*rolloutV1)(nil), (*rolloutV2)(nil), func(a, b any, _ conversion.Scope) error {
		in, out := a.(*rolloutV1), b.(*rolloutV2)
		out.ObjectMeta, out.Object = in.ObjectMeta, in.Object
		out.Items = append(out.Items, in.Names...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := scheme.AddConversionFunc((*rolloutV2)(nil), (*rolloutV1)(nil), func(a, b any, _ conversion.Scope) error {
		in, out := a.(*rolloutV2), b.(*rolloutV1)
		out.ObjectMeta, out.Object, out.Names = in.ObjectMeta, in.Object, slices.Clone(in.Items)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	object := `"object":{"type":"object","x-kubernetes-embedded-resource":true,"properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},` +
		`"metadata":{"type":"object"},"spec":{"type":"object","properties":{"known":{"type":"string"}}}}}`
	schemaOf := func(list string) string {
		return `{"type":"object","properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},"metadata":{"type":"object"},` +
			`"` + list + `":{"type":"array","items":{"type":"string"}},` + object + `}}`
	}
	v, err := NewSchemaValidation(scheme, ValidatedKind{
		Group: group, Kind: "Rollout", Namespaced: true, StorageVersion: "v2",
		Schemas: map[string]string{"v1": schemaOf("names"), "v2": schemaOf("items")},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := request.WithRequestInfo(context.Background(), &request.RequestInfo{APIGroup: group, APIVersion: "v1"})
	for _, c := range []struct{ name, sent, want string }{
		{"nothing to drop", `{"apiVersion":"v1","kind":"ConfigMap","spec":{"known":"a"}}`, `{"apiVersion":"v1","kind":"ConfigMap","spec":{"known":"a"}}`},
		{"an unknown field dropped", `{"apiVersion":"v1","kind":"ConfigMap","spec":{"known":"a","unknown":"b"}}`, `{"apiVersion":"v1","kind":"ConfigMap","spec":{"known":"a"}}`},
	} {
		// As the server decodes a v1 request: converted into a new hub object.
		hub := &rolloutV2{}
		if err := scheme.Convert(&rolloutV1{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "default"}, Names: []string{"a", "b"}, Object: runtime.RawExtension{Raw: []byte(c.sent)}}, hub, nil); err != nil {
			t.Fatal(err)
		}
		v.Prune(ctx, hub)
		if !slices.Equal(hub.Items, []string{"a", "b"}) {
			t.Errorf("%s: items %q after Prune, want [a b]", c.name, hub.Items)
		}
		var got, want any
		if err := json.Unmarshal(hub.Object.Raw, &got); err != nil {
			t.Fatalf("%s: %v (%s)", c.name, err, hub.Object.Raw)
		}
		_ = json.Unmarshal([]byte(c.want), &want)
		if !equality.Semantic.DeepEqual(got, want) {
			t.Errorf("%s: embedded resource %s, want %s", c.name, hub.Object.Raw, c.want)
		}
		if hub.Name != "r" || hub.Namespace != "default" {
			t.Errorf("%s: metadata %s/%s, want default/r", c.name, hub.Namespace, hub.Name)
		}
	}
}
