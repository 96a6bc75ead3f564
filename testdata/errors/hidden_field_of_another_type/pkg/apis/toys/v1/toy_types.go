package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Toy's spec has a mode of its own and inlines Options, whose mode is a bool: encoding/json
// encodes the shallower, controller-gen merges both schemas and cannot.
// +apigen:resource
type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ToySpec `json:"spec,omitempty"`
}

// ToySpec is the desired state.
type ToySpec struct {
	// +optional
	Mode string `json:"mode,omitempty"`

	Options `json:",inline"`
}

// Options are switches.
type Options struct {
	// +optional
	Mode bool `json:"mode,omitempty"`
}

// ToyList is a list of Toy.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Toy `json:"items"`
}
