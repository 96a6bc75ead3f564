package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Widget declares other verbs than in v1, the version it is stored in.
// +apigen:resource
// +apigen:storage:custom:verbs=get;list
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
