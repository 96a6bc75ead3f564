package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Toy is served by storage of the project's own that lists it, and has no list type.
// +apigen:resource
// +apigen:storage:custom:verbs=create;get;list;watch
type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ToySpec `json:"spec,omitempty"`
}

// ToySpec is the desired state.
type ToySpec struct {
	Color string `json:"color,omitempty"`
}
