package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// drum is a test kind.
// +apigen:resource
type drum struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec drumSpec `json:"spec,omitempty"`
}

// drumSpec is the desired state.
type drumSpec struct {
	Color string `json:"color,omitempty"`
}

// drumList is a list of drum.
type drumList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []drum `json:"items"`
}
