package v1_test

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"

	v1 "example.com/wardle/pkg/apis/probes/v1"
	"example.com/wardle/pkg/generated/openapi"
)

// TestServedSchemaIsTheJSON compares the properties of the generated OpenAPI definitions with
// the keys encoding/json writes for a value with every field set: a field an inlined struct's
// field of the same JSON name hides is not encoded, and not described either.
func TestServedSchemaIsTheJSON(t *testing.T) {
	defs := openapi.GetOpenAPIDefinitions(func(path string) spec.Ref { return spec.MustCreateRef("#/definitions/" + path) })
	yes, no := true, false
	spec := v1.ProbeSpec{
		Authorization: &v1.Token{Token: "t"},
		URL:           "u",
		HTTPConfig: v1.HTTPConfig{
			Authorization:   &v1.BasicAuth{User: "u"},
			URL:             "hidden",
			TLSConfig:       v1.TLSConfig{ServerName: "n", HTTPS: &no},
			FollowRedirects: true,
		},
		ProxyConfig: &v1.ProxyConfig{ProxyURL: "p", HTTPS: &yes},
	}
	probe := definition(t, defs, v1.ProbeSpec{}.OpenAPIModelName())
	if got, want := properties(probe), jsonKeys(t, spec); !slices.Equal(got, want) {
		t.Errorf("ProbeSpec's properties are %v, encoding/json writes %v", got, want)
	}
	if ref := probe.Properties["authorization"].Ref; ref.String() != "#/definitions/"+(v1.Token{}).OpenAPIModelName() {
		t.Errorf("ProbeSpec's authorization refers to %s, want the shallower field's Token", ref.String())
	}
	if got := probe.Properties["authorization"].Description; got != "authorization of the probe itself." {
		t.Errorf("ProbeSpec's authorization is described %q, want the shallower field's description", got)
	}
	if got := probe.Properties["https"].Description; got != "https of ProxyConfig." {
		t.Errorf("ProbeSpec's https is described %q, want ProxyConfig's, the shallower", got)
	}
	if got := probe.Required; !slices.Equal(got, []string{"url"}) {
		t.Errorf("ProbeSpec requires %v, want [url] once", got)
	}

	// HTTPConfig's own definition, the schema of Endpoint's http, is whole.
	http := definition(t, defs, v1.HTTPConfig{}.OpenAPIModelName())
	if got, want := properties(http), jsonKeys(t, spec.HTTPConfig); !slices.Equal(got, want) {
		t.Errorf("HTTPConfig's properties are %v, encoding/json writes %v", got, want)
	}
	if ref := http.Properties["authorization"].Ref; ref.String() != "#/definitions/"+(v1.BasicAuth{}).OpenAPIModelName() {
		t.Errorf("HTTPConfig's authorization refers to %s, want its own BasicAuth", ref.String())
	}
}

func definition(t *testing.T, defs map[string]common.OpenAPIDefinition, name string) spec.Schema {
	t.Helper()
	d, ok := defs[name]
	if !ok {
		t.Fatalf("no OpenAPI definition %s", name)
	}
	return d.Schema
}

func properties(s spec.Schema) []string {
	return slices.Sorted(maps.Keys(s.Properties))
}

func jsonKeys(t *testing.T, v any) []string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return slices.Sorted(maps.Keys(m))
}
