package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Toy uses declarative validation's tags where validation-gen refuses them.
// +apigen:resource
type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ToySpec `json:"spec,omitempty"`
}

// ToySpec is the desired state.
type ToySpec struct {
	// +k8s:optional
	// +k8s:minimum=1
	Color string `json:"color,omitempty"`
	// +k8s:optional
	// +k8s:unique=set
	Tags []string `json:"tags,omitempty"`
}

// ToyList is a list of Toys.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Toy `json:"items"`
}
