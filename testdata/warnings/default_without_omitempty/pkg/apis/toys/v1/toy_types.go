package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Toy has defaults on fields that are neither pointers nor omitempty, which a CRD accepts.
// +apigen:resource
type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ToySpec `json:"spec,omitempty"`
}

// ToySpec is the desired state.
type ToySpec struct {
	// +kubebuilder:default=3
	Size int32 `json:"size"`
	// +default="red"
	Color string `json:"color"`
	// +kubebuilder:default=0
	Count int32 `json:"count"`
	// +kubebuilder:default=5
	Limit *int32 `json:"limit"`
}

// ToyList is a list of Toys.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Toy `json:"items"`
}
