package install

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	v1 "example.com/wardle/pkg/apis/routes/v1"
	v1beta1 "example.com/wardle/pkg/apis/routes/v1beta1"
)

// v1beta1's Route is a defined type of v1's: decoded as the server decodes a request, it
// converts to its hub, v1's Route, field for field, with the default of the Status field it
// shares with v1 applied; and the hub is written back as v1beta1.
func TestDefinedKindToHub(t *testing.T) {
	scheme := runtime.NewScheme()
	Install(scheme)
	codecs := serializer.NewCodecFactory(scheme)
	obj, err := runtime.Decode(codecs.UniversalDecoder(), []byte(`{"apiVersion":"routes.example.com/v1beta1","kind":"Route","metadata":{"name":"a"},"spec":{"host":"example.com"}}`))
	if err != nil {
		t.Fatal(err)
	}
	hub, ok := obj.(*v1.Route)
	if !ok || hub.Name != "a" || hub.Spec.Host != "example.com" || hub.Status.Phase != "Pending" || hub.Spec.Weight == nil || *hub.Spec.Weight != 1 {
		t.Fatalf("decoded %T %+v, want v1's Route with spec.host, the default weight 1 and phase Pending", obj, obj)
	}
	data, err := runtime.Encode(codecs.LegacyCodec(v1beta1.SchemeGroupVersion), hub)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(data); !strings.Contains(got, `"apiVersion":"routes.example.com/v1beta1"`) || !strings.Contains(got, `"host":"example.com"`) {
		t.Errorf("encoded as v1beta1: %s", got)
	}
}

// Grant is stored in v1beta1, the defined type: v1's Grant, the struct, converts to it.
func TestStructKindToDefinedHub(t *testing.T) {
	scheme := runtime.NewScheme()
	Install(scheme)
	codecs := serializer.NewCodecFactory(scheme)
	obj, err := runtime.Decode(codecs.UniversalDecoder(), []byte(`{"apiVersion":"routes.example.com/v1","kind":"Grant","metadata":{"name":"g"},"spec":{"from":"other"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if hub, ok := obj.(*v1beta1.Grant); !ok || hub.Name != "g" || hub.Spec.From != "other" {
		t.Fatalf("decoded %T %+v, want v1beta1's Grant with spec.from", obj, obj)
	}
}

// Mirror's v1beta1 type carries +kubebuilder:skipversion: the scheme knows Mirror in v1 only,
// and the v1beta1 type stays a runtime.Object of its package, as controller-gen makes it.
func TestSkippedVersionNotRegistered(t *testing.T) {
	scheme := runtime.NewScheme()
	Install(scheme)
	if !scheme.Recognizes(v1.SchemeGroupVersion.WithKind("Mirror")) {
		t.Error("the scheme does not know v1's Mirror")
	}
	if scheme.Recognizes(v1beta1.SchemeGroupVersion.WithKind("Mirror")) {
		t.Error("the scheme knows v1beta1's Mirror, whose type carries +kubebuilder:skipversion")
	}
	var obj runtime.Object = &v1beta1.Mirror{Spec: v1.MirrorSpec{Target: "b"}}
	if c := obj.DeepCopyObject().(*v1beta1.Mirror); c.Spec.Target != "b" {
		t.Errorf("DeepCopyObject gave %+v", c)
	}
}
