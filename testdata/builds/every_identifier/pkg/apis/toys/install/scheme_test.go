package install

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
)

// The generated install registers a package that declares every name apigen could, and
// decoding applies the declarative default and then the Default hook.
func TestScheme(t *testing.T) {
	scheme := runtime.NewScheme()
	Install(scheme)
	for _, gvk := range []schema.GroupVersionKind{
		{Group: "toys.example.com", Version: "v1", Kind: "Widget"},
		{Group: "toys.example.com", Version: runtime.APIVersionInternal, Kind: "WidgetList"},
	} {
		if !scheme.Recognizes(gvk) {
			t.Errorf("the scheme does not know %s", gvk)
		}
	}
	codecs := serializer.NewCodecFactory(scheme)
	decoder := codecs.UniversalDecoder(schema.GroupVersion{Group: "toys.example.com", Version: "v1"})
	obj, err := runtime.Decode(decoder, []byte(`{"apiVersion":"toys.example.com/v1","kind":"Widget","metadata":{"name":"a"},"spec":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	if got := u["spec"].(map[string]any)["color"]; got != "red" {
		t.Errorf("color %v, want the default red", got)
	}
	if got := u["spec"].(map[string]any)["kind"]; got != "plain" {
		t.Errorf("kind %v, want plain from the Default hook", got)
	}
}
