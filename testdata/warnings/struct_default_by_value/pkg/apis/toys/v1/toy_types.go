package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Toy has defaults on struct fields held by value, as flux's Status and leaderworkerset's
// IntOrString: the server applies them, as a CRD does; openapi-gen publishes only the
// IntOrString's (a type with its own JSON) and {}.
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
}

// Nested is a struct.
type Nested struct {
	Value string `json:"value,omitempty"`
}

// ToyStatus is the observed state.
type ToyStatus struct {
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// ToyList is a list of Toys.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Toy `json:"items"`
}
