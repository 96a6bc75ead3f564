package v1

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// WidgetSpec is a widget's spec.
type WidgetSpec struct {
	// +kubebuilder:default=red
	Color string `json:"color,omitempty"`
	// Kind is one of the package's own types.
	Kind Kind `json:"kind,omitempty"`
	// Notes and Aliases point to a map and a slice, as velero's DataMoverResult does: a nil
	// one there encodes as null and comes back as a nil pointer, which the generated
	// round-trip test must not call a loss.
	Notes   *map[string]string `json:"notes,omitempty"`
	Aliases *[]string          `json:"aliases,omitempty"`
	// Settings is free-form JSON, as cert-manager's webhook solver config: the generated
	// round-trip test fills it with valid JSON.
	Settings *apiextensionsv1.JSON `json:"settings,omitempty"`
}

// Widget is a resource.
// +apigen:resource
// +apigen:selectablefield:JSONPath=.spec.color
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec WidgetSpec `json:"spec,omitempty"`
}

// Default sets the kind of a widget that has none.
func (w *Widget) Default() {
	if w.Spec.Kind == "" {
		w.Spec.Kind = "plain"
	}
}

// WidgetList is a list of widgets.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Widget `json:"items"`
}
