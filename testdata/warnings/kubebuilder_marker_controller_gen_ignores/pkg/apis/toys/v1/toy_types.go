package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Toy is a kubebuilder kind beside interface types whose marker is spelt with a colon where
// controller-gen's grammar wants "=": controller-gen skips the line, and the module builds.
// +kubebuilder:object:root=true
type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ToySpec `json:"spec,omitempty"`
}

// ToySpec is the desired state.
type ToySpec struct {
	// +kubebuilder:validaton:Minimum=1
	Count int32 `json:"count,omitempty"`
}

// +kubebuilder:object:root=true

// ToyList is a list of Toys.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Toy `json:"items"`
}

// Shape is implemented by the toy's parts.
// +kubebuilder:object:generate:false
type Shape interface {
	Area() int32
}

// Painter paints a part.
// +kubebuilder:object:generate:false
type Painter interface {
	Paint(color string)
}
