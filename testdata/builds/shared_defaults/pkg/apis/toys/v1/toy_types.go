package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"example.com/wardle/pkg/shared"
)

// Toy is a test kind whose spec is a struct of the project's shared package, which is no API
// package, and inlines another.
// +apigen:resource
type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   shared.ToySpec `json:"spec,omitempty"`
	Status ToyStatus      `json:"status,omitempty"`
}

// ToyStatus inlines a struct of the shared package.
type ToyStatus struct {
	shared.Observed `json:",inline"`
}

// ToyList is a list of Toy.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Toy `json:"items"`
}
