// This file was scaffolded by apigen and is yours to edit.

package v2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// WidgetSpec is the desired state of a Widget.
type WidgetSpec struct {
	// Size of the widget, in centimetres.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	Size int32 `json:"size"`

	// Paint is one of red, green or blue.
	// +kubebuilder:validation:Enum=red;green;blue
	// +kubebuilder:default=red
	// +optional
	Paint string `json:"paint,omitempty"`

	// Replicas is how many copies of the widget to keep.
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
}

// WidgetStatus is the observed state of a Widget.
type WidgetStatus struct {
	// Replicas is how many copies of the widget there are.
	// +optional
	Replicas int32 `json:"replicas,omitempty"`

	// Conditions are the latest observations of the Widget's state.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Widget is a thing on a shelf.
//
// +apigen:resource:path=widgets,scope=Namespaced,shortName=wd,categories=toys
// +apigen:subresource:status
// +apigen:storageversion
// +apigen:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas
// +apigen:printcolumn:name=Size,type=integer,JSONPath=.spec.size
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired state of the Widget, set by its users.
	// +optional
	Spec WidgetSpec `json:"spec,omitempty"`

	// Status is the observed state of the Widget, written through the /status subresource.
	// +optional
	Status WidgetStatus `json:"status,omitempty"`
}

// WidgetList is a list of Widget objects.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the Widget objects of the list.
	Items []Widget `json:"items"`
}
