package v1beta1

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
)

// Each version has its own rules: v1beta1 allows a size up to 5, v1 up to 10.
func TestVersionRules(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	red := "r"
	for size, want := range map[int32]string{5: "", 6: "spec.size"} {
		toy := &Toy{Spec: ToySpec{Name: "teddy", Maker: "acme", Brand: "bearco", Shelf: "top", Size: size, Red: &red}}
		errs := scheme.Validate(context.Background(), nil, toy)
		got := ""
		if len(errs) > 0 {
			got = errs[0].Field
		}
		if len(errs) > 1 || got != want {
			t.Errorf("size %d: got %v, want an error at %q", size, errs, want)
		}
	}
}
