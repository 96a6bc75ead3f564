package model

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sigs.k8s.io/gateway-api's layout: v1 stores TLSRoute, v1beta1 stores ReferenceGrant, and
// v1alpha2 declares both, as v1 does. conversion-gen converts a type with the first of its
// package's peers that declares one of its name, so for v1alpha2 the hub of its
// ReferenceGrant, v1beta1, comes before v1, which declares a ReferenceGrant too.
func TestConversionPeersPutEachKindsHubFirst(t *testing.T) {
	const pkg = "example.com/p/apis/gateway/"
	kind := func(name string) *Resource {
		return &Resource{Kind: name, ListKind: name + "List"}
	}
	v1 := &Version{Name: "v1", Package: pkg + "v1", Resources: []*Resource{kind("ReferenceGrant"), kind("TLSRoute")}}
	v1beta1 := &Version{Name: "v1beta1", Package: pkg + "v1beta1", Resources: []*Resource{kind("ReferenceGrant")}}
	v1alpha2 := &Version{Name: "v1alpha2", Package: pkg + "v1alpha2", Resources: []*Resource{kind("ReferenceGrant"), kind("TLSRoute")}}
	kinds := []*Kind{
		{Name: "ReferenceGrant", Storage: v1beta1, Versions: []*Version{v1, v1beta1, v1alpha2}},
		{Name: "TLSRoute", Storage: v1, Versions: []*Version{v1, v1alpha2}},
	}
	p := &Project{Groups: []*Group{{Name: "gateway.networking.k8s.io", Versions: []*Version{v1, v1alpha2, v1beta1}, Kinds: kinds}}}
	want := map[string][]string{
		pkg + "v1alpha2": {pkg + "v1beta1", pkg + "v1"},
		pkg + "v1beta1":  {pkg + "v1"}, // v1's ReferenceGrant converts in the package of lower priority
	}
	if diff := cmp.Diff(want, p.ConversionPeers()); diff != "" {
		t.Errorf("peers (-want +got):\n%s", diff)
	}
}
