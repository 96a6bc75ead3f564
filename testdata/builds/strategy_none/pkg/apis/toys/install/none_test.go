package install

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	v1 "example.com/wardle/pkg/apis/toys/v1"
	"example.com/wardle/pkg/apis/toys/v1alpha1"
)

// v1alpha1 has no conversion code, so it converts to and from the hub, v1, as a CRD with
// conversion strategy None converts: name carries over, colour (which v1alpha1 lacks) and size
// (an object in v1, a string in v1alpha1) are dropped, and the conversion does not fail.
func TestStrategyNone(t *testing.T) {
	scheme := runtime.NewScheme()
	Install(scheme)
	hub := &v1.Toy{Spec: v1.ToySpec{Name: "a", Colour: "red", Size: &v1.ToySize{Width: 3}}}
	hub.Name = "a"
	out, err := scheme.ConvertToVersion(hub, v1alpha1.SchemeGroupVersion)
	if err != nil {
		t.Fatal(err)
	}
	spoke := out.(*v1alpha1.Toy)
	if spoke.Spec != (v1alpha1.ToySpec{Name: "a"}) || spoke.Name != "a" {
		t.Errorf("v1 → v1alpha1 gave %+v, want only name (and metadata) carried over", spoke)
	}
	spoke.Spec.Color, spoke.Spec.Size = "blue", "large"
	back, err := scheme.ConvertToVersion(spoke, v1.SchemeGroupVersion)
	if err != nil {
		t.Fatal(err)
	}
	if got := back.(*v1.Toy); got.Spec != (v1.ToySpec{Name: "a"}) || got.Name != "a" {
		t.Errorf("v1alpha1 → v1 gave %+v, want only name (and metadata) carried over", got)
	}
}
