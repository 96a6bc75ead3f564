package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// toy is a test kind.
// +apigen:resource
type toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec toySpec `json:"spec,omitempty"`
}

// toySpec is the desired state.
type toySpec struct {
	Color string `json:"color,omitempty"`
}

// toyList is a list of toy.
type toyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []toy `json:"items"`
}
