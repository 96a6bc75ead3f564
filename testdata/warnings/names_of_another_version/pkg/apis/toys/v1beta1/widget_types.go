package v1beta1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Widget in v1beta1 declares the storage version's short name wd and category toys, which
// apply, and short names w and wi and a category all of its own, which do not: the kind is
// served with v1's, as a CRD's one spec.names serves every version.
// +apigen:resource:path=widgets,shortName=wd;w;wi,categories=toys;all
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

// Gadget in v1beta1 declares a short name, which v1, its storage version, does not.
// +kubebuilder:resource:path=gadgets,shortName=gd
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
