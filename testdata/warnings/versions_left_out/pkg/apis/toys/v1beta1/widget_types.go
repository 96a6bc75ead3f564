package v1beta1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Widget is served in v1beta1 only, and stored there.
// +apigen:resource
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
