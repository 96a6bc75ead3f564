package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// ToySpec is a second kind whose name is the first kind's Spec type.
// +apigen:resource
type ToySpec struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ToySpecSpec `json:"spec,omitempty"`
}

// ToySpecSpec is the desired state.
type ToySpecSpec struct {
	Size int32 `json:"size,omitempty"`
}

// ToySpecList is a list of ToySpec.
type ToySpecList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []ToySpec `json:"items"`
}
