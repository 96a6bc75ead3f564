package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// ToySpec is the desired state.
type ToySpec struct {
	Replicas *int32 `json:"replicas,omitempty"`
	Name     string `json:"name,omitempty"`
}

// ToyStatus is the observed state.
type ToyStatus struct {
	Replicas int32    `json:"replicas,omitempty"`
	Selector []string `json:"selector,omitempty"`
}

// Toy is a test kind.
// +apigen:resource

type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ToySpec   `json:"spec,omitempty"`
	Status ToyStatus `json:"status,omitempty"`
}

// ToyList is a list of Toy.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Toy `json:"items"`
}

// Ball is a test kind.
// +apigen:resource

type Ball struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ToySpec   `json:"spec,omitempty"`
	Status ToyStatus `json:"status,omitempty"`
}

// BallList is a list of Ball.
type BallList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Ball `json:"items"`
}

// Doll is a test kind.
// +apigen:resource
// +apigen:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.spec.name
type Doll struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ToySpec   `json:"spec,omitempty"`
	Status ToyStatus `json:"status,omitempty"`
}

// DollList is a list of Doll.
type DollList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Doll `json:"items"`
}
