package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Ball is a test kind.
// +apigen:resource:path
type Ball struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec BallSpec `json:"spec,omitempty"`
}

// BallSpec is the desired state.
type BallSpec struct {
	Color string `json:"color,omitempty"`
}

// BallList is a list of Ball.
type BallList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Ball `json:"items"`
}
