// This file was scaffolded by apigen and is yours to edit.

package v1alpha1_test

import (
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"

	"example.com/wardle/pkg/apis/wardle/v1alpha1"
	"example.com/wardle/pkg/apiserver"
	"example.com/wardle/pkg/cmd/server/servertest"
)

// TestFlunder runs the API server in process (embedded etcd in a temporary directory,
// stopped when the test ends), creates a Flunder and reads it back, and checks what the
// Default and Validate hooks in flunder_hooks.go do.
func TestFlunder(t *testing.T) {
	cfg := servertest.Start(t, apiserver.APIs())
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	resource := client.Resource(v1alpha1.SchemeGroupVersion.WithResource("flunders")).Namespace("default")

	want := &v1alpha1.Flunder{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "Flunder"},
		ObjectMeta: metav1.ObjectMeta{Name: "example", Namespace: "default"},
		Spec:       v1alpha1.FlunderSpec{Reference: "other"},
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(want)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := resource.Create(t.Context(), &unstructured.Unstructured{Object: content}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating a Flunder: %v", err)
	}

	u, err := resource.Get(t.Context(), "example", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("getting the Flunder back: %v", err)
	}
	var got v1alpha1.Flunder
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &got); err != nil {
		t.Fatal(err)
	}
	if got.Name != want.Name || got.UID == "" || got.CreationTimestamp.IsZero() {
		t.Errorf("got back name %q, uid %q, created %v; want %q with a uid and a creation time", got.Name, got.UID, got.CreationTimestamp, want.Name)
	}
	// Default: a reference without a type refers to a Flunder.
	if got.Spec.ReferenceType == nil || *got.Spec.ReferenceType != v1alpha1.FlunderReferenceType {
		t.Errorf("spec.referenceType = %v, want the default %q", got.Spec.ReferenceType, v1alpha1.FlunderReferenceType)
	}

	// Validate: a flunder may not refer to itself.
	self := want.DeepCopy()
	self.Name, self.Spec.Reference = "narcissus", "narcissus"
	content, err = runtime.DefaultUnstructuredConverter.ToUnstructured(self)
	if err != nil {
		t.Fatal(err)
	}
	_, err = resource.Create(t.Context(), &unstructured.Unstructured{Object: content}, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "cannot refer to itself") {
		t.Errorf("creating a self-referring Flunder: got %v, want an Invalid error from the Validate hook", err)
	}
}
