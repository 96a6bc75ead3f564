package install

import (
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	v1 "example.com/wardle/pkg/apis/node/v1"
	v1beta1 "example.com/wardle/pkg/apis/node/v1beta1"
)

// Two versions laid out as k8s.io/api's, neither marked +apigen:storageversion: the kind is
// stored in v1, the version kube-apiserver prefers, whose type is the hub; v1beta1, whose
// register.go has no localSchemeBuilder, converts to it with conversion-gen's functions,
// registered through the localSchemeBuilder apigen declares for them.
func TestOlderVersionConvertsToThePreferred(t *testing.T) {
	scheme := runtime.NewScheme()
	Install(scheme)
	codecs := serializer.NewCodecFactory(scheme)
	obj, err := runtime.Decode(codecs.UniversalDecoder(), []byte(`{"apiVersion":"node.example.com/v1beta1","kind":"RuntimeClass","metadata":{"name":"gvisor"},"handler":"runsc","overhead":{"podFixed":{"cpu":"250m"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	hub, ok := obj.(*v1.RuntimeClass)
	if !ok {
		t.Fatalf("decoded %T, want the hub *v1.RuntimeClass", obj)
	}
	if hub.Handler != "runsc" || hub.Overhead == nil || hub.Overhead.PodFixed["cpu"] != "250m" {
		t.Errorf("hub %+v, want v1beta1's handler and overhead", hub)
	}
	back, err := scheme.ConvertToVersion(hub, v1beta1.SchemeGroupVersion)
	if err != nil {
		t.Fatal(err)
	}
	want := &v1beta1.RuntimeClass{
		TypeMeta:   metav1.TypeMeta{APIVersion: "node.example.com/v1beta1", Kind: "RuntimeClass"},
		ObjectMeta: metav1.ObjectMeta{Name: "gvisor"},
		Handler:    "runsc",
		Overhead:   &v1beta1.Overhead{PodFixed: map[string]string{"cpu": "250m"}},
	}
	if !apiequality.Semantic.DeepEqual(back, want) {
		t.Errorf("hub → v1beta1 gave %+v, want %+v", back, want)
	}
}
