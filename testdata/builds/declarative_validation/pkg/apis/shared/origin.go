// Package shared has types both versions of the toys API use. Its +k8s: tags run and are
// published inside the kinds that use its types. It names its OpenAPI model package, so apigen
// writes the model names here (as openapi-gen would), and nothing else.
// +k8s:openapi-model-package=com.example.toys.shared
package shared

// Origin is where a toy was made. Its fields' requiredness is declared here, where the
// project declares the type, and holds wherever a kind uses it.
type Origin struct {
	// Country is required where an origin is given, though the JSON leaves it out when empty:
	// published as required, enforced by declarative validation alone.
	// +k8s:required
	// +k8s:maxLength=2
	Country string `json:"country,omitempty"`
	// Factory is optional in a CRD's schema (+kubebuilder:validation:Optional), but the API
	// declares it required (+k8s:required): published as required, and enforced by declarative
	// validation, which ratchets.
	// +kubebuilder:validation:Optional
	// +k8s:required
	Factory string `json:"factory"`
	// Year is optional, though the JSON always has it: not listed as required, not refused
	// when absent.
	// +k8s:optional
	Year int32 `json:"year"`
	// Batch is bounded as a CRD's schema bounds a field: enforced by the schema, and published
	// in the kind's OpenAPI as a bound of the version package's own types is.
	// +optional
	// +kubebuilder:validation:Minimum=1
	Batch int32 `json:"batch,omitempty"`
}
