package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Yoyo is a test kind.
// +apigen:resource
// +apigen:printcolumn:name=Color,type=string,JSONPath=spec.color
// +kubebuilder:selectablefield:JSONPath=.spec.color
// +apigen:selectablefield:JSONPath=.spec.color
type Yoyo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec YoyoSpec `json:"spec,omitempty"`
}

// YoyoSpec is the desired state.
type YoyoSpec struct {
	Color string `json:"color,omitempty"`
}

// YoyoList is a list of Yoyo.
type YoyoList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Yoyo `json:"items"`
}
