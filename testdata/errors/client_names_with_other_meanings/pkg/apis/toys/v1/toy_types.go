package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Toy is a test kind.
// +apigen:resource
type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ToySpec `json:"spec,omitempty"`
}

// ToySpec is the desired state.
type ToySpec struct {
	// Resource names what the toy is made of.
	Resource Resource `json:"resource,omitempty"`
}

// ToyList is a list of Toy.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Toy `json:"items"`
}

// Resource is a material: a type of the API, where the generated listers expect the
// conventional func Resource.
type Resource string

// SchemeGroupVersion is a revision number here.
const SchemeGroupVersion = 3
