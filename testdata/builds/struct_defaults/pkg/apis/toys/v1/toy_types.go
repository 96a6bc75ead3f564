package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Toy has defaults on struct fields held by value, as flux's Status and leaderworkerset's
// IntOrString, at the top, inside list items and with defaults inside them: the server applies
// them as a CustomResourceDefinition does (pkg/registry/toys/toy/defaults_test.go compares).
// +apigen:resource
// +apigen:subresource:status
type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ToySpec `json:"spec,omitempty"`
	// +kubebuilder:default={"observedGeneration":-1}
	Status ToyStatus `json:"status,omitempty"`
}

// ToySpec is the desired state.
type ToySpec struct {
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:default=1
	MaxUnavailable intstr.IntOrString `json:"maxUnavailable,omitempty"`
	// +kubebuilder:default={}
	Empty Nested `json:"empty,omitempty"`
	Parts []Part `json:"parts,omitempty"`
}

// Nested is a struct.
type Nested struct {
	Value string `json:"value,omitempty"`
}

// Part is a list item with a defaulted struct.
type Part struct {
	Name string `json:"name,omitempty"`
	// +kubebuilder:default={"unit":"cm"}
	Size Size `json:"size,omitempty"`
}

// Size is a measure.
type Size struct {
	Unit  string `json:"unit,omitempty"`
	Value int32  `json:"value,omitempty"`
}

// ToyStatus is the observed state.
type ToyStatus struct {
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// +kubebuilder:default=Pending
	Phase string `json:"phase,omitempty"`
}

// ToyList is a list of Toys.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Toy `json:"items"`
}
