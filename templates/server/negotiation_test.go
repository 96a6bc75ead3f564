package server

import (
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
)

// plainKind is a kind as a user writes it: no protobuf marshalers.
type plainKind struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

func (in *plainKind) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

func mediaTypes(s runtime.NegotiatedSerializer) []string {
	var out []string
	for _, info := range s.SupportedMediaTypes() {
		out = append(out, info.MediaType)
	}
	return out
}

func TestGroupSerializer(t *testing.T) {
	plainGV := schema.GroupVersion{Group: "plain.example.com", Version: "v1"}
	scheme := runtime.NewScheme()
	if err := appsv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	metav1.AddToGroupVersion(scheme, appsv1.SchemeGroupVersion)
	scheme.AddKnownTypeWithName(plainGV.WithKind("Plain"), &plainKind{})
	metav1.AddToGroupVersion(scheme, plainGV)
	// A group of k8s.io/api types but one kind, which lacks marshalers.
	mixedGV := schema.GroupVersion{Group: "mixed.example.com", Version: "v1"}
	scheme.AddKnownTypes(mixedGV, &appsv1.Deployment{}, &appsv1.DeploymentList{})
	scheme.AddKnownTypeWithName(mixedGV.WithKind("Plain"), &plainKind{})
	codecs := serializer.NewCodecFactory(scheme)
	if !slices.Contains(mediaTypes(codecs), runtime.ContentTypeProtobuf) {
		t.Fatalf("the codec factory offers %v, without protobuf: nothing to test", mediaTypes(codecs))
	}

	for _, c := range []struct {
		group    string
		protobuf bool
	}{
		{appsv1.GroupName, true},
		{plainGV.Group, false},
		{mixedGV.Group, false},
		{"unknown.example.com", false},
	} {
		got := mediaTypes(GroupSerializer(scheme, codecs, c.group))
		if slices.Contains(got, runtime.ContentTypeProtobuf) != c.protobuf {
			t.Errorf("group %q: media types %v, want protobuf among them: %v", c.group, got, c.protobuf)
		}
		if !slices.Contains(got, runtime.ContentTypeJSON) || !slices.Contains(got, runtime.ContentTypeYAML) {
			t.Errorf("group %q: media types %v, want JSON and YAML", c.group, got)
		}
	}

	// The rest of the factory is the project's: what it encodes for JSON is unchanged.
	s := GroupSerializer(scheme, codecs, plainGV.Group)
	info, _ := runtime.SerializerInfoForMediaType(s.SupportedMediaTypes(), runtime.ContentTypeJSON)
	data, err := runtime.Encode(s.EncoderForVersion(info.Serializer, plainGV), &plainKind{ObjectMeta: metav1.ObjectMeta{Name: "a"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"kind":"Plain","apiVersion":"plain.example.com/v1","metadata":{"name":"a"}}` + "\n"; string(data) != want {
		t.Errorf("JSON encoding: %s, want %s", data, want)
	}
}
