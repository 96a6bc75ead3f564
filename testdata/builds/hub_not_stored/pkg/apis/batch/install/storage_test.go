package install

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	v2 "example.com/wardle/api/v2"
)

// CronJob's hub is v2 (Hub() is there) and its storage version v1, as kueue v0.15 ships its
// kinds: the server decodes every request into the hub and encodes it in v1 for etcd with v1's
// ConvertFrom, and reads etcd's v1 back into the hub with its ConvertTo, as a CRD with a
// conversion webhook stores it.
func TestHubThatIsNotTheStorageVersion(t *testing.T) {
	scheme := runtime.NewScheme()
	Install(scheme)
	codecs := serializer.NewCodecFactory(scheme)
	info, _ := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
	internal := schema.GroupVersion{Group: "batch.tutorial.kubebuilder.io", Version: runtime.APIVersionInternal}
	storage := schema.GroupVersion{Group: "batch.tutorial.kubebuilder.io", Version: "v1"}

	// A v2 request, decoded as the server decodes it.
	obj, err := runtime.Decode(codecs.UniversalDecoder(internal), []byte(`{"apiVersion":"batch.tutorial.kubebuilder.io/v2","kind":"CronJob","metadata":{"name":"a"},"spec":{"cron":"@hourly"}}`))
	if err != nil {
		t.Fatal(err)
	}
	hub, ok := obj.(*v2.CronJob)
	if !ok || hub.Spec.Cron != "@hourly" {
		t.Fatalf("decoded %T %+v, want the hub with spec.cron", obj, obj)
	}

	// Encoded for etcd in the storage version: v1's spec.schedule.
	stored, err := runtime.Encode(codecs.CodecForVersions(info.Serializer, codecs.UniversalDeserializer(), storage, internal), hub)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"apiVersion":"batch.tutorial.kubebuilder.io/v1"`, `"schedule":"@hourly"`} {
		if !strings.Contains(string(stored), want) {
			t.Errorf("stored %s, want %s in it", stored, want)
		}
	}

	// Read back from etcd into the hub.
	back, err := runtime.Decode(codecs.UniversalDecoder(internal), stored)
	if err != nil {
		t.Fatal(err)
	}
	if b, ok := back.(*v2.CronJob); !ok || b.Spec.Cron != "@hourly" || b.Name != "a" {
		t.Errorf("read back %T %+v, want the hub with spec.cron @hourly", back, back)
	}
}
