package v1_test

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	v1 "example.com/wardle/pkg/apis/probes/v1"
	applyv1 "example.com/wardle/pkg/generated/applyconfiguration/probes/v1"
)

// TestApplyConfigurationIsTheJSON compares the keys ProbeSpec's apply configuration writes,
// every field it has set, with those encoding/json writes for a ProbeSpec with every field
// set: HTTPConfig, whose fields ProbeSpec's hide, is written in place without them, so there
// is no field to set that JSON would not carry.
func TestApplyConfigurationIsTheJSON(t *testing.T) {
	yes := true
	spec := v1.ProbeSpec{
		Authorization: &v1.Token{Token: "t"},
		URL:           "u",
		HTTPConfig: v1.HTTPConfig{
			Authorization:   &v1.BasicAuth{User: "u"},
			URL:             "hidden",
			TLSConfig:       v1.TLSConfig{ServerName: "n", HTTPS: &yes},
			FollowRedirects: true,
		},
		ProxyConfig: &v1.ProxyConfig{ProxyURL: "p", HTTPS: &yes},
	}
	apply := applyv1.ProbeSpec().
		WithAuthorization(applyv1.Token().WithToken("t")).
		WithURL("u").
		WithServerName("n").
		WithFollowRedirects(true)
	// applyconfiguration-gen gives an inlined pointer's fields no With functions.
	apply.ProxyConfigApplyConfiguration = *applyv1.ProxyConfig().WithProxyURL("p").WithHTTPS(true)
	got, err := json.Marshal(apply)
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	if g, w := keysOf(t, got), keysOf(t, want); !slices.Equal(g, w) {
		t.Errorf("ProbeSpec's apply configuration writes %v, encoding/json writes %v for ProbeSpec", g, w)
	}
}

func keysOf(t *testing.T, data []byte) []string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return slices.Sorted(maps.Keys(m))
}
