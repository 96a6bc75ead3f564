package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Toy is a test kind.
// +apigen:resource:shortName=t;to
type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// ToyList is a list of Toy.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Toy `json:"items"`
}

// Train is a test kind.
// +apigen:resource:shortName=t
type Train struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// TrainList is a list of Train.
type TrainList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Train `json:"items"`
}

// Top is a test kind.
// +kubebuilder:resource:shortName=toys
type Top struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// TopList is a list of Top.
type TopList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Top `json:"items"`
}
