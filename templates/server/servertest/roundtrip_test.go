package servertest

import (
	"encoding/json"
	"math/rand"
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

func object(t *testing.T, s string) map[string]any {
	t.Helper()
	var out map[string]any
	if err := utiljson.Unmarshal([]byte(s), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRoundTripReportsDrops: what was sent and did not come back, or came back changed, is
// reported at its JSON path; what the server adds (defaults) and empties that read back as
// absent are not; server-managed metadata is left out of the comparison.
func TestRoundTripReportsDrops(t *testing.T) {
	sent := object(t, `{
		"metadata": {"name": "a", "uid": "sent", "labels": {"app": "x", "example.com/tier": "web"}},
		"spec": {
			"template": {"metadata": {"labels": {"app": "x"}, "annotations": {"note": "kept"}}},
			"replicas": 9007199254740993,
			"ports": [{"port": 80}, {"port": 443, "name": "https"}],
			"empty": [], "none": null, "nothing": {}
		}
	}`)
	got := object(t, `{
		"metadata": {"name": "a", "uid": "server", "resourceVersion": "7", "labels": {"app": "x"}},
		"spec": {
			"template": {"metadata": {"labels": {"app": "x"}}},
			"replicas": 9007199254740992,
			"ports": [{"port": 80}, {"port": 443}],
			"defaulted": true
		}
	}`)
	want := []string{
		`.metadata.labels["example.com/tier"]: sent "web", dropped`,
		`.spec.ports[1].name: sent "https", dropped`,
		`.spec.replicas: sent 9007199254740993, read back 9007199254740992`,
		`.spec.template.metadata.annotations: sent {"note":"kept"}, dropped`,
	}
	if d := cmp.Diff(want, diff("", withoutServerMetadata(sent), withoutServerMetadata(got))); d != "" {
		t.Errorf("differences (-want +got):\n%s", d)
	}
	if d := diff("", withoutServerMetadata(sent), withoutServerMetadata(sent)); len(d) != 0 {
		t.Errorf("an object differs from itself: %v", d)
	}
	if d := diff("", object(t, `{"spec": {"ports": [1, 2]}}`), object(t, `{"spec": {"ports": [1]}}`)); len(d) != 1 || d[0] != ".spec.ports: sent [1,2], read back [1]" {
		t.Errorf("a shorter list: %v", d)
	}
}

// TestParsePath reads field paths as apimachinery prints them.
func TestParsePath(t *testing.T) {
	got := parsePath(`spec.template.spec.containers[0].env[1].name`)
	want := []step{{"spec", -1}, {"template", -1}, {"spec", -1}, {"containers", -1}, {"0", 0}, {"env", -1}, {"1", 1}, {"name", -1}}
	if !slices.Equal(got, want) {
		t.Errorf("parsePath = %v, want %v", got, want)
	}
	if got := parsePath(`metadata.labels[example.com/tier]`); !slices.Equal(got, []step{{"metadata", -1}, {"labels", -1}, {"example.com/tier", -1}}) {
		t.Errorf("a map key: %v", got)
	}
}

// TestRepair: a refused value is replaced by one the error lists as supported, a string by
// the usual formats in turn, a required field by another object's value, and at last left
// out, or what holds it is; a change that would not decode is not made.
func TestRepair(t *testing.T) {
	obj := object(t, `{"spec": {"kind": "zz", "name": "Ǆ", "count": -4, "ref": {"uid": ""}, "items": [{"x": 1}]}}`)
	tried := map[string]bool{}
	donor := func(int) map[string]any { return object(t, `{"spec": {"ref": {"uid": "from-donor"}}}`) }
	valid := func(m map[string]any) bool { // count must stay a number
		spec, _ := m["spec"].(map[string]any)
		_, bad := spec["count"].(string)
		return !bad
	}
	steps := []struct {
		cause metav1.StatusCause
		how   string
		want  string
	}{
		{metav1.StatusCause{Type: metav1.CauseTypeFieldValueNotSupported, Field: "spec.kind", Message: `Unsupported value: "zz": supported values: "Flunder", "Fischer"`},
			"replaced by a supported value", `"Flunder"`},
		{metav1.StatusCause{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.name"}, `replaced by "a"`, `"a"`},
		{metav1.StatusCause{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.name"}, `replaced by "a.example.com"`, `"a.example.com"`},
		{metav1.StatusCause{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.count"}, "replaced by 1", `1`},
		{metav1.StatusCause{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.count"}, "left out", ``},
		{metav1.StatusCause{Type: metav1.CauseTypeFieldValueRequired, Field: "spec.ref.uid"}, "filled from another random object", `"from-donor"`},
		{metav1.StatusCause{Type: metav1.CauseTypeFieldValueRequired, Field: "spec.items[0].y"}, "left out what holds it", ``},
	}
	for _, s := range steps {
		if how := repair(obj, s.cause, tried, donor, valid); how != s.how {
			t.Errorf("%s (%s): %q, want %q", s.cause.Field, s.cause.Type, how, s.how)
		}
		got := ""
		if v, ok := at(obj, parsePath(s.cause.Field)); ok {
			data, _ := json.Marshal(v.get())
			got = string(data)
		}
		if got != s.want {
			t.Errorf("%s after %q: %s, want %s", s.cause.Field, s.how, got, s.want)
		}
	}
	if items := obj["spec"].(map[string]any)["items"].([]any); len(items) != 0 {
		t.Errorf("the list element holding a required field no value fills is still there: %v", items)
	}
	if how := repair(obj, metav1.StatusCause{Type: metav1.CauseTypeFieldValueRequired, Field: "spec.missing"}, tried, func(int) map[string]any { return nil }, valid); how != "left out what holds it" {
		t.Errorf("a required field nothing fills: %q", how)
	}
}

// TestRepairInsideListElements: a required list missing in a list element is filled there from
// another object, and a value put in place of another is repaired anew: what was tried on the
// fields of the value it replaced is tried again on its own (Gateway API's required
// spec.rules[0].backendRefs, whose element's weight validation refuses).
func TestRepairInsideListElements(t *testing.T) {
	obj := object(t, `{"spec": {"rules": [{"name": "x"}]}}`)
	tried := map[string]bool{}
	donor := func(int) map[string]any {
		return object(t, `{"spec": {"rules": [{"backendRefs": [{"name": "b", "weight": -1}]}]}}`)
	}
	valid := func(map[string]any) bool { return true }
	steps := []struct {
		cause metav1.StatusCause
		how   string
		want  string
	}{
		{metav1.StatusCause{Type: metav1.CauseTypeFieldValueRequired, Field: "spec.rules[0].backendRefs"},
			"filled from another random object", `{"spec":{"rules":[{"backendRefs":[{"name":"b","weight":-1}],"name":"x"}]}}`},
		{metav1.StatusCause{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.rules[0].backendRefs[0].weight"},
			"replaced by 1", `{"spec":{"rules":[{"backendRefs":[{"name":"b","weight":1}],"name":"x"}]}}`},
		{metav1.StatusCause{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.rules[0].backendRefs[0]"},
			"filled from another random object", `{"spec":{"rules":[{"backendRefs":[{"name":"b","weight":-1}],"name":"x"}]}}`},
		{metav1.StatusCause{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.rules[0].backendRefs[0].weight"},
			"replaced by 1", `{"spec":{"rules":[{"backendRefs":[{"name":"b","weight":1}],"name":"x"}]}}`},
	}
	for _, s := range steps {
		if how := repair(obj, s.cause, tried, donor, valid); how != s.how {
			t.Errorf("%s (%s): %q, want %q", s.cause.Field, s.cause.Type, how, s.how)
		}
		if got, _ := json.Marshal(obj); string(got) != s.want {
			t.Errorf("after %s %q: %s, want %s", s.cause.Field, s.how, got, s.want)
		}
	}
	// A list index that names no element is not made up.
	if how := repair(obj, metav1.StatusCause{Type: metav1.CauseTypeFieldValueRequired, Field: "spec.rules[3].backendRefs"}, tried, donor, valid); how == "filled from another random object" {
		t.Errorf("a required field in a list element that is not there was filled: %v", obj)
	}
}

// widgetHub and widgetV1 are one kind as its hub and as a served version whose conversion
// reads the object's namespace, as Cluster API's v1beta1 gives its references the object's.
type widgetHub struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Size              int `json:"size,omitempty"`
}

type widgetV1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Size              int    `json:"size,omitempty"`
	RefNamespace      string `json:"refNamespace,omitempty"`
}

func (w *widgetHub) DeepCopyObject() runtime.Object {
	c := *w
	w.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

func (w *widgetV1) DeepCopyObject() runtime.Object {
	c := *w
	w.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

// A random object is converted to the served version in the namespace it is written to, so
// that a conversion reading the namespace gives what the server's gives: what is sent of a
// namespaced kind holds "default" where the conversion copies the namespace, of a
// cluster-scoped kind nothing.
func TestRandomObjectIsInItsNamespace(t *testing.T) {
	hub := schema.GroupVersionKind{Group: "toys.example.com", Version: runtime.APIVersionInternal, Kind: "Widget"}
	v1 := schema.GroupVersionKind{Group: hub.Group, Version: "v1", Kind: hub.Kind}
	scheme := runtime.NewScheme()
	scheme.AddKnownTypeWithName(hub, &widgetHub{})
	scheme.AddKnownTypeWithName(v1, &widgetV1{})
	if err := scheme.AddConversionFunc((*widgetHub)(nil), (*widgetV1)(nil), func(a, b any, _ conversion.Scope) error {
		in, out := a.(*widgetHub), b.(*widgetV1)
		out.ObjectMeta, out.Size, out.RefNamespace = in.ObjectMeta, in.Size, in.Namespace
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, namespaced := range []bool{true, false} {
		k := kindTrip{gvk: v1, hub: hub, namespaced: namespaced, scheme: scheme}
		want := map[bool]string{true: "default", false: ""}[namespaced]
		for seed := range int64(5) {
			// Metadata filled as RoundTrip fills it: a random namespace.
			fill := fuzzer.FuzzerFor(fuzzer.MergeFuzzerFuncs(metafuzzer.Funcs, validMetadata), rand.NewSource(seed), serializer.NewCodecFactory(scheme))
			obj, err := k.randomWith(fill)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := obj["refNamespace"].(string)
			if got != want {
				t.Errorf("namespaced %v, seed %d: the conversion read namespace %q, want %q", namespaced, seed, got, want)
			}
		}
	}
}

// podSet has a field whose default the server applies at its zero value (Kueue's
// PodSet.Count, +kubebuilder:default=1 without omitempty) and one without a default.
type podSet struct {
	Name  string `json:"name"`
	Count int32  `json:"count"`
	Other int32  `json:"other"`
}

type workloadSpec struct {
	PodSets []podSet          `json:"podSets,omitempty"`
	ByName  map[string]podSet `json:"byName,omitempty"`
	Inlined `json:",inline"`
}

type Inlined struct {
	Mode string `json:"mode"`
}

type workload struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              *workloadSpec `json:"spec,omitempty"`
}

// TestDefaultsAtZero: a field DefaultsAtZero names, sent at its zero value, is expected to
// read back its default, wherever its struct is held (list, map, inlined struct); any other
// field sent at zero, or such a field sent at another value, is expected unchanged, so the
// comparison still fails where they are lost or changed.
func TestDefaultsAtZero(t *testing.T) {
	rules, err := defaultsAtZero([]DefaultAtZero{
		{Type: reflect.TypeFor[podSet](), Field: "Count", Default: "1"},
		{Type: reflect.TypeFor[Inlined](), Field: "Mode", Default: `"Auto"`},
	})
	if err != nil {
		t.Fatal(err)
	}
	sent := object(t, `{"metadata": {"name": "a"}, "spec": {
		"podSets": [{"name": "", "count": 0, "other": 0}, {"name": "b", "count": 7, "other": 0}],
		"byName": {"x": {"name": "x", "count": 0, "other": 3}},
		"mode": ""
	}}`)
	want := object(t, `{"metadata": {"name": "a"}, "spec": {
		"podSets": [{"name": "", "count": 1, "other": 0}, {"name": "b", "count": 7, "other": 0}],
		"byName": {"x": {"name": "x", "count": 1, "other": 3}},
		"mode": "Auto"
	}}`)
	got := rules.apply(reflect.TypeFor[*workload](), sent)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if sent["spec"].(map[string]any)["podSets"].([]any)[0].(map[string]any)["count"] != int64(0) {
		t.Error("apply changed the object it was given")
	}
	// What the server would read back where it changed another field too is still a loss.
	back := object(t, `{"metadata": {"name": "a"}, "spec": {
		"podSets": [{"name": "", "count": 1, "other": 1}, {"name": "b", "count": 7, "other": 0}],
		"byName": {"x": {"name": "x", "count": 1, "other": 3}},
		"mode": "Auto"
	}}`)
	if d := diff("", got.(map[string]any), back); !slices.Equal(d, []string{".spec.podSets[0].other: sent 0, read back 1"}) {
		t.Errorf("differences: %v", d)
	}
	if _, err := defaultsAtZero([]DefaultAtZero{{Type: reflect.TypeFor[podSet](), Field: "Missing", Default: "1"}}); err == nil {
		t.Error("a rule naming no field was taken")
	}
}
