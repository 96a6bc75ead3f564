package v1_test

import (
	"encoding/json"
	"slices"
	"testing"

	v1 "example.com/wardle/pkg/apis/probes/v1"
	"example.com/wardle/pkg/registry/probes/probe"
)

// TestEnforcedSchemaIsTheJSON compares the schema the server validates a Probe's spec with
// (the one its CustomResourceDefinition would carry) with what encoding/json writes: the
// fields HTTPConfig's authorization and url lose to ProbeSpec's own are neither properties
// nor required there, so a Probe with ProbeSpec's authorization and no HTTPConfig one is
// valid, as it must be (encoding/json never writes the hidden one).
func TestEnforcedSchemaIsTheJSON(t *testing.T) {
	var s struct {
		Properties struct {
			Spec schema `json:"spec"`
		} `json:"properties"`
	}
	if err := json.Unmarshal([]byte(probe.Schemas["v1"]), &s); err != nil {
		t.Fatal(err)
	}
	spec := s.Properties.Spec
	yes := true
	if got, want := spec.keys(), jsonKeys(t, v1.ProbeSpec{
		Authorization: &v1.Token{Token: "t"},
		URL:           "u",
		HTTPConfig:    v1.HTTPConfig{TLSConfig: v1.TLSConfig{ServerName: "n"}, FollowRedirects: true},
		ProxyConfig:   &v1.ProxyConfig{ProxyURL: "p", HTTPS: &yes},
	}); !slices.Equal(got, want) {
		t.Errorf("the enforced schema of ProbeSpec has properties %v, encoding/json writes %v", got, want)
	}
	if got := spec.Required; !slices.Equal(got, []string{"url"}) {
		t.Errorf("the enforced schema of ProbeSpec requires %v, want [url] (HTTPConfig's authorization is hidden)", got)
	}
	if got := spec.Properties["authorization"].keys(); !slices.Equal(got, []string{"token"}) {
		t.Errorf("the enforced schema of ProbeSpec's authorization has properties %v, want Token's [token] alone", got)
	}
}

type schema struct {
	Required   []string          `json:"required"`
	Properties map[string]schema `json:"properties"`
}

func (s schema) keys() []string {
	var out []string
	for k := range s.Properties {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
