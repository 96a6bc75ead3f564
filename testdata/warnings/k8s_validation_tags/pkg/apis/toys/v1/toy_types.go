package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Toy validates with declarative validation's tags, as k8s.io/api's types do: those the
// schema enforces pass in silence, the rest are warnings.
// +apigen:resource
type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ToySpec `json:"spec,omitempty"`
}

// ToySpec is the desired state.
type ToySpec struct {
	// +k8s:required
	// +k8s:maxLength=63
	// +k8s:format=k8s-short-name
	Name string `json:"name"`
	// +k8s:optional
	// +k8s:minimum=0
	// +k8s:maximum=10
	Size int32 `json:"size,omitempty"`
	// +k8s:optional
	// +k8s:immutable
	Class string `json:"class,omitempty"`
	// +k8s:optional
	// +k8s:maxItems=4
	// +k8s:eachVal=+k8s:maxLength=8
	// +k8s:alpha(since:"1.36")=+k8s:minItems=1
	// +k8s:beta(since:"1.37")=+k8s:unique=set
	Tags []string `json:"tags,omitempty"`
	// +k8s:optional
	// +k8s:unionMember
	Red *string `json:"red,omitempty"`
	// +k8s:optional
	// +k8s:unionMember
	Blue *string `json:"blue,omitempty"`
}

// ToyList is a list of Toys.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Toy `json:"items"`
}
