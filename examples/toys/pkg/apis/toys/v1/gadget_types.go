// This file was scaffolded by apigen and is yours to edit.

package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// GadgetSpec is the desired state of a Gadget.
type GadgetSpec struct {
	// Foo is an example field; replace it with your own and run apigen generate.
	// +optional
	Foo string `json:"foo,omitempty"`
}

// GadgetStatus is the observed state of a Gadget.
type GadgetStatus struct {
	// Conditions are the latest observations of the Gadget's state.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Gadget is an object of the gadgets API. Say here what a Gadget stands for: this
// comment is the description kubectl explain gadgets shows, as the comments on the fields
// below are for each field.
//
// +apigen:resource:path=gadgets,scope=Cluster
// +apigen:subresource:status
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired state of the Gadget, set by its users.
	// +optional
	Spec GadgetSpec `json:"spec,omitempty"`

	// Status is the observed state of the Gadget, written through the /status subresource.
	// +optional
	Status GadgetStatus `json:"status,omitempty"`
}

// GadgetList is a list of Gadget objects.
type GadgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the Gadget objects of the list.
	Items []Gadget `json:"items"`
}
