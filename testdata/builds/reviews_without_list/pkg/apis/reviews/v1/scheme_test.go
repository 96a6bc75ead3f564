package v1

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
)

// The reviews are registered with the scheme as kinds of their own, and no list is; Audit,
// which the server cannot serve, is not.
func TestReviewsRegistered(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"TokenCheck", "QuotaReview"} {
		if !scheme.Recognizes(SchemeGroupVersion.WithKind(kind)) {
			t.Errorf("%s is not registered", kind)
		}
		if scheme.Recognizes(SchemeGroupVersion.WithKind(kind + "List")) {
			t.Errorf("%sList is registered, but the package declares none", kind)
		}
	}
	if scheme.Recognizes(SchemeGroupVersion.WithKind("Audit")) {
		t.Error("Audit is registered")
	}
}
