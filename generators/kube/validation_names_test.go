package kube

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPackageAliases: the packages whose Validate_ functions a version package copies are
// named as they are usually imported, with more of their path where two would share a name,
// and never two alike.
func TestPackageAliases(t *testing.T) {
	got := packageAliases([]string{
		"k8s.io/api/core/v1",
		"k8s.io/api/resource/v1",
		"example.com/toys/pkg/apis/shared",
		"example.com/toys/pkg/legacy/apis/shared",
		"example.com/toys/pkg/more/common",
		"example.com/toys/a-b",
		"example.com/toys/ab",
		"example.com/toys/ab2",
	})
	want := map[string]string{
		"k8s.io/api/core/v1":                      "corev1",
		"k8s.io/api/resource/v1":                  "resourcev1",
		"example.com/toys/pkg/apis/shared":        "pkgapisshared",
		"example.com/toys/pkg/legacy/apis/shared": "legacyapisshared",
		"example.com/toys/pkg/more/common":        "morecommon",
		// One whole path but for the dash: the first keeps the name, the other is numbered.
		"example.com/toys/a-b": "examplecomtoysab",
		"example.com/toys/ab":  "examplecomtoysab2",
		// Its own name is toysab2, and ab's would have been too.
		"example.com/toys/ab2": "toysab2",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("packageAliases (-want +got):\n%s", diff)
	}
}
