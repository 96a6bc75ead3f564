package v1

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Toy is a test kind.
// +apigen:resource
// +apigen:storageversion
// +apigen:storage:custom:verbs=get;list;patch;proxy
type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// ToyList is a list of Toy.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Toy `json:"items"`
}

// Gadget is a test kind with what an etcd store serves.
// +apigen:resource
// +apigen:storageversion
// +apigen:storage:custom:verbs=get;list
// +apigen:subresource:status
// +apigen:printcolumn:name=Color,type=string,JSONPath=.spec.color
// +apigen:selectablefield:JSONPath=.spec.color
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   GadgetSpec   `json:"spec,omitempty"`
	Status GadgetStatus `json:"status,omitempty"`
}

// GadgetSpec is the desired state.
type GadgetSpec struct {
	Color string `json:"color,omitempty"`
}

// GadgetStatus is the observed state.
type GadgetStatus struct {
	Ready bool `json:"ready,omitempty"`
}

// Default is fine with custom storage: it runs when a request body is decoded.
func (g *Gadget) Default() {}

// Validate would never be called.
func (g *Gadget) Validate(ctx context.Context) field.ErrorList { return nil }

// GadgetList is a list of Gadget.
type GadgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Gadget `json:"items"`
}

// Widget is stored in this version with custom storage.
// +apigen:resource
// +apigen:storageversion
// +apigen:storage:custom:verbs=get;list;watch
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// WidgetList is a list of Widget.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Widget `json:"items"`
}
