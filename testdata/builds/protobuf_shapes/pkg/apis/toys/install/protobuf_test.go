package install

import (
	"bytes"
	"reflect"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	v1 "example.com/wardle/pkg/apis/toys/v1"
)

// A Gauge goes through the protobuf serializer and back whole, and its spec prints with its own
// String.
func TestGaugeProtobuf(t *testing.T) {
	scheme := runtime.NewScheme()
	Install(scheme)
	in := &v1.Gauge{Spec: v1.GaugeSpec{Color: "red", Size: 7, Flags: []bool{true, false}, Weights: []float64{0.5, 2}}}
	in.Name = "g"
	s := protobuf.NewSerializer(scheme, scheme)
	data, err := runtime.Encode(s, in)
	if err != nil {
		t.Fatal(err)
	}
	out := &v1.Gauge{}
	if _, _, err := s.Decode(data, nil, out); err != nil {
		t.Fatal(err)
	}
	if out.Spec.Color != "red" || out.Spec.Size != 7 || len(out.Spec.Flags) != 2 || !out.Spec.Flags[0] || out.Spec.Weights[1] != 2 {
		t.Errorf("decoded %+v, want %+v", out.Spec, in.Spec)
	}
	if got := out.Spec.String(); got != "gauge red" {
		t.Errorf("String() = %q, the spec's own", got)
	}
}

// A nullable named slice held directly (ResourceInfo's verbs) encodes to the bytes metav1's
// generated.pb.go writes for an APIResource of the same values, each decodes the other's, and nil
// stays apart from empty.
func TestNullableNamedSliceWireCompatible(t *testing.T) {
	for i, verbs := range [][]string{nil, {}, {"get"}, {"get", "list", ""}} {
		up := metav1.APIResource{Name: "gauges", SingularName: "gauge", Namespaced: i%2 == 0, Group: "toys.example.com",
			Version: "v1", Kind: "Gauge", ShortNames: []string{"g"}, Categories: verbs, StorageVersionHash: "h"}
		cp := v1.ResourceInfo{Name: up.Name, SingularName: up.SingularName, Namespaced: up.Namespaced, Group: up.Group,
			Version: up.Version, Kind: up.Kind, ShortNames: up.ShortNames, Categories: up.Categories, StorageVersionHash: up.StorageVersionHash}
		if verbs != nil {
			up.Verbs, cp.Verbs = metav1.Verbs(slices.Clone(verbs)), v1.Verbs(slices.Clone(verbs))
		}
		want, err := up.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		got, err := cp.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("verbs %#v: apigen encodes\n%x\nwhere metav1 encodes\n%x", verbs, got, want)
			continue
		}
		var back v1.ResourceInfo
		if err := back.Unmarshal(want); err != nil {
			t.Fatal(err)
		}
		var upBack metav1.APIResource
		if err := upBack.Unmarshal(got); err != nil {
			t.Fatal(err)
		}
		if (back.Verbs == nil) != (verbs == nil) || !slices.Equal(back.Verbs, verbs) {
			t.Errorf("verbs %#v: apigen decodes metav1's bytes to %#v", verbs, back.Verbs)
		}
		if (upBack.Verbs == nil) != (verbs == nil) || !slices.Equal(upBack.Verbs, verbs) {
			t.Errorf("verbs %#v: metav1 decodes apigen's bytes to %#v", verbs, upBack.Verbs)
		}
	}
}

// Named slices held directly go through the protobuf serializer: one without
// +protobuf.nullable as its elements (nil and empty alike), a nullable one, a pointer to one and
// metav1's Verbs each keeping nil apart from empty.
func TestNamedSlicesProtobuf(t *testing.T) {
	scheme := runtime.NewScheme()
	Install(scheme)
	s := protobuf.NewSerializer(scheme, scheme)
	empty := v1.Verbs{}
	for _, c := range []v1.Catalog{
		{},
		{Hosts: v1.Hosts{"a", "b"}, Verbs: v1.Verbs{"get"}, Fallback: &v1.Verbs{"list"}, MetaVerbs: metav1.Verbs{"watch"}},
		{Hosts: v1.Hosts{}, Verbs: v1.Verbs{}, Fallback: &empty, MetaVerbs: metav1.Verbs{}},
		{Resources: []v1.ResourceInfo{{Name: "r", Verbs: v1.Verbs{}}, {Name: "s"}}},
	} {
		in := &v1.Gauge{Spec: v1.GaugeSpec{Catalog: c}}
		in.Name = "g"
		data, err := runtime.Encode(s, in)
		if err != nil {
			t.Fatal(err)
		}
		out := &v1.Gauge{}
		if _, _, err := s.Decode(data, nil, out); err != nil {
			t.Fatal(err)
		}
		want := c
		if len(want.Hosts) == 0 {
			want.Hosts = nil // repeated: empty is nil on the wire
		}
		if !reflect.DeepEqual(out.Spec.Catalog, want) {
			t.Errorf("decoded %#v, want %#v", out.Spec.Catalog, want)
		}
	}
	// Hosts is repeated string 1, as []string would be.
	data, err := (&v1.Catalog{Hosts: v1.Hosts{"a", "b"}}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if want := []byte{0x0a, 1, 'a', 0x0a, 1, 'b'}; !bytes.Equal(data, want) {
		t.Errorf("Catalog{Hosts: [a b]} encodes to %x, want %x", data, want)
	}
	// Verbs is the message 2 of its elements, present when empty.
	data, err = (&v1.Catalog{Verbs: v1.Verbs{}}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if want := []byte{0x12, 0}; !bytes.Equal(data, want) {
		t.Errorf("Catalog{Verbs: []} encodes to %x, want %x", data, want)
	}
}
