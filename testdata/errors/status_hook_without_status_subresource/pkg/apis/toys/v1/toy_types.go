package v1

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Toy is a test kind with a status but no status subresource.
// +apigen:resource
type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Status ToyStatus `json:"status,omitempty"`
}

// ToyStatus is the observed state.
type ToyStatus struct {
	Ready bool `json:"ready,omitempty"`
}

// ValidateStatusUpdate would check writes to /status, which Toy does not serve.
func (t *Toy) ValidateStatusUpdate(ctx context.Context, old *Toy) field.ErrorList {
	return nil
}

// ToyList is a list of Toy.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Toy `json:"items"`
}
