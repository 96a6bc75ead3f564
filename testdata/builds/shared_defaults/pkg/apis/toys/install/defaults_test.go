package install

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	v1 "example.com/wardle/pkg/apis/toys/v1"
	"example.com/wardle/pkg/shared"
)

// The +kubebuilder:default markers of the shared package's fields apply to the kind that
// reaches them, as a CRD generated from these types applies them: on decode (the scheme's
// defaulting), to fields left
// at their zero value, at every depth, through an inlined struct too; a value sent is kept.
func TestSharedPackageDefaults(t *testing.T) {
	scheme := runtime.NewScheme()
	Install(scheme)
	decode := func(doc string) *v1.Toy {
		t.Helper()
		obj, _, err := serializer.NewCodecFactory(scheme).UniversalDeserializer().Decode([]byte(doc), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		scheme.Default(obj) // as the server's decoder does
		return obj.(*v1.Toy)
	}
	red, required := "red", "Required"
	got := decode(`{"apiVersion":"toys.example.com/v1","kind":"Toy","metadata":{"name":"a"},"spec":{"policy":{}}}`)
	want := shared.ToySpec{Colour: &red, Size: 3, Policy: &shared.Policy{Resolution: &required}}
	if !reflect.DeepEqual(got.Spec, want) || got.Status.ObservedGeneration != -1 {
		t.Errorf("decoded %+v (status %+v), want spec %+v and observedGeneration -1", got.Spec, got.Status, want)
	}
	blue, optional := "blue", "Optional"
	got = decode(`{"apiVersion":"toys.example.com/v1","kind":"Toy","metadata":{"name":"a"},"spec":{"colour":"blue","size":5,"policy":{"resolution":"Optional"}},"status":{"observedGeneration":2}}`)
	want = shared.ToySpec{Colour: &blue, Size: 5, Policy: &shared.Policy{Resolution: &optional}}
	if !reflect.DeepEqual(got.Spec, want) || got.Status.ObservedGeneration != 2 {
		t.Errorf("decoded %+v (status %+v), want the values sent", got.Spec, got.Status)
	}
}
