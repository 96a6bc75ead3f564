package server

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
)

// gadget is a stored kind as apigen's users write them: plain Go, no
// protobuf marshalers.
type gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              gadgetSpec `json:"spec"`
}

type gadgetSpec struct {
	Size   int               `json:"size"`
	Color  string            `json:"color,omitempty"`
	Labels map[string]string `json:"labels,omitempty"`
}

func (w *gadget) DeepCopyObject() runtime.Object {
	c := *w
	w.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	if w.Spec.Labels != nil {
		c.Spec.Labels = map[string]string{}
		for k, v := range w.Spec.Labels {
			c.Spec.Labels[k] = v
		}
	}
	return &c
}

var gadgetVersion = schema.GroupVersion{Group: "test.example.com", Version: "v1"}

// gadgetAPIs stores gadgets in v1, whose Go type is also the internal
// version, as a generated project registers its storage version.
func gadgetAPIs() APIs {
	apis := emptyAPIs()
	apis.Scheme.AddKnownTypeWithName(gadgetVersion.WithKind("Gadget"), &gadget{})
	apis.Scheme.AddKnownTypeWithName(schema.GroupVersion{Group: gadgetVersion.Group, Version: runtime.APIVersionInternal}.WithKind("Gadget"), &gadget{})
	apis.Codecs = serializer.NewCodecFactory(apis.Scheme)
	apis.StorageVersions = StorageVersions{{Group: gadgetVersion.Group, Kind: "Gadget"}: gadgetVersion}
	return apis
}

func TestStorageCodecEncodings(t *testing.T) {
	apis := gadgetAPIs()
	in := &gadget{
		ObjectMeta: metav1.ObjectMeta{Name: "w", Namespace: "default", Labels: map[string]string{"a": "b"}},
		Spec:       gadgetSpec{Size: 3, Color: "blue", Labels: map[string]string{"x": "y"}},
	}
	// The first bytes of what each media type stores.
	prefixes := map[string][]byte{
		"":                      []byte(`{"kind":"Gadget","apiVersion":"test.example.com/v1"`),
		runtime.ContentTypeJSON: []byte(`{"kind":"Gadget","apiVersion":"test.example.com/v1"`),
		runtime.ContentTypeYAML: []byte("apiVersion: test.example.com/v1\nkind: Gadget\n"),
		runtime.ContentTypeCBOR: {0xd9, 0xd9, 0xf7}, // self-described CBOR
		"application/cbor; x=y": {0xd9, 0xd9, 0xf7},
	}
	stored := map[string][]byte{}
	codecs := map[string]runtime.Codec{}
	for mediaType, prefix := range prefixes {
		codec, err := storageCodec(apis, mediaType)
		if err != nil {
			t.Fatalf("%q: %v", mediaType, err)
		}
		codecs[mediaType] = codec
		data, err := runtime.Encode(codec, in.DeepCopyObject())
		if err != nil {
			t.Fatalf("%q: encoding: %v", mediaType, err)
		}
		if !bytes.HasPrefix(data, prefix) {
			t.Errorf("%q stores %q, want it to start with %q", mediaType, data, prefix)
		}
		stored[mediaType] = data
	}
	// Every codec reads what any of them stored: a server started with
	// another --storage-media-type on the same data.
	for reader, codec := range codecs {
		for writer, data := range stored {
			out, err := runtime.Decode(codec, data)
			if err != nil {
				t.Errorf("%q reading what %q stored: %v", reader, writer, err)
				continue
			}
			got, ok := out.(*gadget)
			if !ok {
				t.Errorf("%q reading what %q stored: got a %T", reader, writer, out)
				continue
			}
			if got.Name != in.Name || got.Namespace != in.Namespace || !reflect.DeepEqual(got.Labels, in.Labels) || !reflect.DeepEqual(got.Spec, in.Spec) {
				t.Errorf("%q reading what %q stored: got %+v, want %+v", reader, writer, got, in)
			}
		}
	}
	if len(stored[runtime.ContentTypeCBOR]) >= len(stored[runtime.ContentTypeJSON]) {
		t.Errorf("CBOR takes %d bytes, JSON %d", len(stored[runtime.ContentTypeCBOR]), len(stored[runtime.ContentTypeJSON]))
	}
}

func TestStorageCodecRefuses(t *testing.T) {
	for mediaType, want := range map[string]string{
		runtime.ContentTypeProtobuf: `--storage-media-type "application/vnd.kubernetes.protobuf": Gadget.test.example.com cannot be stored so: ` +
			`object *server.gadget does not implement the protobuf marshalling interface`,
		"application/xml":          `--storage-media-type "application/xml" is not supported; want one of application/json, application/yaml, application/cbor, application/vnd.kubernetes.protobuf`,
		"json":                     `--storage-media-type "json" is not supported`,
		"application/json;charset": `--storage-media-type "application/json;charset" is not supported`,
	} {
		_, err := storageCodec(gadgetAPIs(), mediaType)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want an error containing %s", mediaType, err, want)
		}
	}
}

// Upstream's EtcdOptions.Validate refuses application/cbor and accepts
// protobuf; the server's validation says what it can store instead, before
// it starts anything.
func TestStorageMediaTypeFlag(t *testing.T) {
	for _, tc := range []struct {
		value, want string
	}{
		{runtime.ContentTypeCBOR, ""},
		{runtime.ContentTypeYAML, ""},
		{runtime.ContentTypeJSON, ""},
		{runtime.ContentTypeProtobuf, `--storage-media-type "application/vnd.kubernetes.protobuf": Gadget.test.example.com cannot be stored so`},
		{"application/xml", `--storage-media-type "application/xml" is not supported`},
	} {
		o := newOptions(gadgetAPIs())
		fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
		for _, f := range o.flags("test").FlagSets {
			fs.AddFlagSet(f)
		}
		if err := fs.Parse([]string{"--storage-media-type=" + tc.value}); err != nil {
			t.Fatal(err)
		}
		o.complete(fs)
		err := o.validate(fs)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.value, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: got %v, want an error containing %s", tc.value, err, tc.want)
		}
	}

	// Through the command: refused before the data dir is created.
	dir := t.TempDir()
	cmd := NewCommand(context.Background(), gadgetAPIs())
	cmd.SetArgs([]string{"--storage-media-type=application/xml", "--data-dir", dir + "/data", "--write-kubeconfig", dir + "/kubeconfig"})
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), `--storage-media-type "application/xml" is not supported`) {
		t.Errorf("got %v", err)
	}
}
