package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Toy has a method named as a strategy hook, with another signature, as cluster-api's
// MachineSet.Validate(): not a hook, and said so.
// +apigen:resource
type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ToySpec `json:"spec,omitempty"`
}

// ToySpec is the desired state.
type ToySpec struct {
	Size int32 `json:"size,omitempty"`
}

// Validate is a helper of the project's webhooks, not apigen's hook.
func (t *Toy) Validate() field.ErrorList { return nil }

// ToyList is a list of Toys.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Toy `json:"items"`
}
