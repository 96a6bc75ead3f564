package install

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
)

// The generated install registers the kubebuilder package (through its controller-runtime
// SchemeBuilder) and the hub as the internal version, and decoding applies the defaults.
func TestScheme(t *testing.T) {
	scheme := runtime.NewScheme()
	Install(scheme)
	for _, gvk := range []schema.GroupVersionKind{
		{Group: "batch.tutorial.kubebuilder.io", Version: "v1", Kind: "CronJob"},
		{Group: "batch.tutorial.kubebuilder.io", Version: runtime.APIVersionInternal, Kind: "CronJobList"},
	} {
		if !scheme.Recognizes(gvk) {
			t.Errorf("the scheme does not know %s", gvk)
		}
	}
	codecs := serializer.NewCodecFactory(scheme)
	decoder := codecs.UniversalDecoder(schema.GroupVersion{Group: "batch.tutorial.kubebuilder.io", Version: "v1"})
	obj, err := runtime.Decode(decoder, []byte(`{"apiVersion":"batch.tutorial.kubebuilder.io/v1","kind":"CronJob","metadata":{"name":"a"},"spec":{"schedule":"* * * * *"}}`))
	if err != nil {
		t.Fatal(err)
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	if got := u["spec"].(map[string]any)["concurrencyPolicy"]; got != "Allow" {
		t.Errorf("concurrencyPolicy %v, want the default Allow", got)
	}
}
