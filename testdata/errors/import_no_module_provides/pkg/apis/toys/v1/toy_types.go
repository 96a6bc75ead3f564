package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	shared "example.org/shared/api/v1"
)

// Toy is a test kind whose spec comes from a module go.mod does not require.
// +apigen:resource
type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec shared.ToySpec `json:"spec,omitempty"`
}

// ToyList is a list of Toy.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Toy `json:"items"`
}
