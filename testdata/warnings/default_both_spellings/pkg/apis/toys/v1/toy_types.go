package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Toy has fields with both spellings of a default, as cluster-api writes them: one for
// controller-gen's CRD, one for openapi-gen.
// +apigen:resource
type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ToySpec `json:"spec,omitempty"`
}

// Reason is a reason.
type Reason string

// ReasonInvalid is the default reason.
const ReasonInvalid Reason = "Invalid"

// ToySpec is the desired state.
type ToySpec struct {
	// The same value twice: nothing to say.
	// +kubebuilder:default=3
	// +default=3
	Size *int32 `json:"size,omitempty"`
	// openapi-gen's reference to a constant: the CRD's literal applies.
	// +kubebuilder:default=Invalid
	// +default=ref(example.com/wardle/pkg/apis/toys/v1.ReasonInvalid)
	Reason Reason `json:"reason,omitempty"`
	// In the other order, with different values.
	// +default="blue"
	// +kubebuilder:default=red
	Color string `json:"color,omitempty"`
}

// ToyList is a list of Toys.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Toy `json:"items"`
}
