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
	// A length limit on a number.
	// +kubebuilder:validation:MinLength=1
	Count int32 `json:"count,omitempty"`
	// A default that its own schema refuses.
	// +kubebuilder:validation:Maximum=10
	// +kubebuilder:default=11
	Size int32 `json:"size,omitempty"`
}

// ToyList is a list of Toy.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Toy `json:"items"`
}
