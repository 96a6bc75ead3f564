package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Widget is stored in v1: its short names and categories are the kind's, in every version.
// +apigen:resource:path=widgets,shortName=wd,categories=toys
// +apigen:storageversion
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec WidgetSpec `json:"spec,omitempty"`
}

// WidgetSpec is the desired state.
type WidgetSpec struct {
	Color string `json:"color,omitempty"`
}

// WidgetList is a list of Widgets.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// Gadget is stored in v1, which declares no short name or category.
// +apigen:resource:path=gadgets
// +apigen:storageversion
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// GadgetList is a list of Gadgets.
type GadgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Gadget `json:"items"`
}
