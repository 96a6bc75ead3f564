package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Probe's spec inlines structs whose fields are hidden by others of the same JSON name, as
// prometheus-operator's ProbeSpec inlines HTTPConfig beside an authorization field of its own:
// encoding/json encodes the shallowest, and at equal depth none. The served OpenAPI describes
// what encoding/json encodes (openapi_test.go checks).
// +apigen:resource
type Probe struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ProbeSpec `json:"spec,omitempty"`
}

// ProbeList is a list of Probes.
type ProbeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Probe `json:"items"`
}

// Fields that hide one another have one type where a CRD's schema would need it:
// controller-gen merges the schemas of all of them, and refuses two types.
//
// ProbeSpec hides HTTPConfig's authorization and url with fields of its own; ProxyConfig's
// https hides TLSConfig's, one level deeper. (Fields at one depth that tie are
// testdata/builds/inlined_tied's.)
type ProbeSpec struct {
	// authorization of the probe itself.
	// +optional
	Authorization *Token `json:"authorization,omitempty"`
	// url to probe.
	URL string `json:"url"`

	HTTPConfig   `json:",inline"`
	*ProxyConfig `json:",inline"`
}

// HTTPConfig is inlined by ProbeSpec, and a field of Endpoint, where it is whole.
type HTTPConfig struct {
	// authorization of the HTTP client.
	Authorization *BasicAuth `json:"authorization"`
	// url of the HTTP client (required, unless hidden).
	URL       string `json:"url"`
	TLSConfig `json:",inline"`
	// followRedirects is not hidden.
	// +optional
	FollowRedirects bool `json:"followRedirects,omitempty"`
}

// TLSConfig is inlined one level deeper.
type TLSConfig struct {
	// serverName is not hidden.
	// +optional
	ServerName string `json:"serverName,omitempty"`
	// https of TLSConfig, hidden by ProxyConfig's, which is shallower in ProbeSpec.
	// +optional
	HTTPS *bool `json:"https,omitempty"`
}

// ProxyConfig is inlined by pointer.
type ProxyConfig struct {
	// proxyURL is not hidden.
	// +optional
	ProxyURL string `json:"proxyURL,omitempty"`
	// https of ProxyConfig.
	// +optional
	HTTPS *bool `json:"https,omitempty"`
}

// Token is a bearer token.
type Token struct {
	// +optional
	Token string `json:"token,omitempty"`
}

// BasicAuth is a user and a password.
type BasicAuth struct {
	// +optional
	User string `json:"user,omitempty"`
	// +optional
	Password string `json:"password,omitempty"`
}

// Endpoint holds HTTPConfig as a field: its definition is HTTPConfig's, whole.
// +apigen:resource
type Endpoint struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	HTTP HTTPConfig `json:"http,omitempty"`
}

// EndpointList is a list of Endpoints.
type EndpointList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Endpoint `json:"items"`
}
