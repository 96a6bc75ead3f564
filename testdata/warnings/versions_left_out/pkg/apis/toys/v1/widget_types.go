package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Widget is not served in v1, as a CRD version with served: false. A CRD could still store it
// there; apigen stores a kind in a version that serves it, so the storage version marker
// beside it has no effect, and Widget is stored in v1beta1, the only version served.
// +apigen:resource
// +kubebuilder:storageversion
// +kubebuilder:unservedversion
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

// Gizmo is unserved in v1, the only version that declares it: it is not served at all.
// +apigen:resource
// +kubebuilder:unservedversion
type Gizmo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// GizmoList is a list of Gizmos.
type GizmoList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Gizmo `json:"items"`
}
