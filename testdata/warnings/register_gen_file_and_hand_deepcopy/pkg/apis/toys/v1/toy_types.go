package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Toy is a resource.
// +apigen:resource
type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ToySpec `json:"spec,omitempty"`
}

// DeepCopyObject implements the runtime.Object interface.
func (t *Toy) DeepCopyObject() runtime.Object { return t.DeepCopy() }

// ToySpec is the desired state.
type ToySpec struct {
	Size int32 `json:"size,omitempty"`
}

// ToyList is a list of Toys.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Toy `json:"items"`
}

// DeepCopyObject implements the runtime.Object interface.
func (l *ToyList) DeepCopyObject() runtime.Object { return l.DeepCopy() }
