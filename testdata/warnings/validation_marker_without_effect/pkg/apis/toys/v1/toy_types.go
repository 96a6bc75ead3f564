package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"example.com/wardle/pkg/apis/shared"
)

// Toy carries markers that controller-gen v0.19 and openapi-gen accepted without effect.
// +apigen:resource
type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ToySpec `json:"spec,omitempty"`
}

// ToySpec is the desired state.
type ToySpec struct {
	// +listType=atomic
	Color string `json:"color,omitempty"`
	// +kubebuilder:validation:MaxLength=5
	Tags []string `json:"tags,omitempty"`
	// +listType=atomic
	Data []byte `json:"data,omitempty"`
	// A type of another package of the project, whose marker has no effect either.
	Part shared.Part `json:"part,omitempty"`
}

// ToyList is a list of Toys.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Toy `json:"items"`
}
