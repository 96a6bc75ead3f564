package v1

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Toy is a test kind.
// +apigen:resource
type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ToySpec `json:"spec,omitempty"`
}

// ToySpec is the desired state.
type ToySpec struct {
	Color string `json:"color,omitempty"`
}

// ToyList is a list of Toy.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Toy `json:"items"`
}

// Validate has the wrong signature.
func (t *Toy) Validate() error { return nil }

// WarningsOnUpdate is right.
func (t *Toy) WarningsOnUpdate(ctx context.Context, old *Toy) []string { return nil }

// Default is right.
func (t *Toy) Default() {}

// PrepareForUpdate misses the old object.
func (t *Toy) PrepareForUpdate(ctx context.Context) {}
