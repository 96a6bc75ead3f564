package install

import (
	"testing"

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
