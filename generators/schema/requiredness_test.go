package schema

import (
	"maps"
	"slices"
	"strings"
	"testing"

	ctmarkers "sigs.k8s.io/controller-tools/pkg/markers"
)

// TestRequiredness checks which requiredness marker each combination of a field's markers
// leaves to controller-tools, in the enforced and in the published schema.
func TestRequiredness(t *testing.T) {
	for _, c := range []struct {
		markers             string
		enforced, published string // the requiredness markers left, "" for the markers as written
	}{
		{"k8s:required", "optional", "required"},
		{"k8s:required required", "optional", "required"},
		{"k8s:required kubebuilder:validation:Required", "optional", "required"},
		{"k8s:required kubebuilder:validation:Optional", "optional", "required"},
		{"k8s:required optional", "optional", "optional"},
		{"k8s:optional", "optional", "optional"},
		{"k8s:optional required", "optional", "required"},
		{"k8s:optional kubebuilder:validation:Required", "optional", "optional"},
		// Without a +k8s: tag, controller-tools decides.
		{"required", "", ""},
		{"kubebuilder:validation:Optional", "", ""},
	} {
		for _, published := range []bool{false, true} {
			values := ctmarkers.MarkerValues{"kubebuilder:validation:MaxLength": {3}}
			for _, name := range strings.Fields(c.markers) {
				values[name] = []any{struct{}{}}
			}
			requiredness(values, published)
			want := c.enforced
			if published {
				want = c.published
			}
			if want == "" {
				want = c.markers
			}
			if values.Get("kubebuilder:validation:MaxLength") == nil {
				t.Errorf("%s (published %v): other markers go too", c.markers, published)
			}
			delete(values, "kubebuilder:validation:MaxLength")
			if got := strings.Join(slices.Sorted(maps.Keys(values)), " "); got != want {
				t.Errorf("%s (published %v): got %q, want %q", c.markers, published, got, want)
			}
		}
	}
}
