// This file was scaffolded by apigen and is yours to edit.

package v1alpha1_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"

	"example.com/wardle/pkg/apis/wardle/v1alpha1"
	"example.com/wardle/pkg/apiserver"
	"example.com/wardle/pkg/cmd/server/servertest"
)

// TestFischer runs the API server in process (embedded etcd in a temporary directory,
// stopped when the test ends), creates a Fischer and reads it back. Extend it as your
// Fischer grows: fill in its spec, and check what your Validate and Default hooks do.
func TestFischer(t *testing.T) {
	cfg := servertest.Start(t, apiserver.APIs())
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	resource := client.Resource(v1alpha1.SchemeGroupVersion.WithResource("fischers"))

	want := &v1alpha1.Fischer{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "Fischer"},
		ObjectMeta: metav1.ObjectMeta{Name: "example"},
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(want)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := resource.Create(t.Context(), &unstructured.Unstructured{Object: content}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating a Fischer: %v", err)
	}

	u, err := resource.Get(t.Context(), "example", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("getting the Fischer back: %v", err)
	}
	var got v1alpha1.Fischer
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &got); err != nil {
		t.Fatal(err)
	}
	if got.Name != want.Name || got.UID == "" || got.CreationTimestamp.IsZero() {
		t.Errorf("got back name %q, uid %q, created %v; want %q with a uid and a creation time", got.Name, got.UID, got.CreationTimestamp, want.Name)
	}
}
