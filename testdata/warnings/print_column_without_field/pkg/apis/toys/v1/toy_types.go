package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Toy is a test kind.
// +apigen:resource
// +apigen:printcolumn:name=Kind,type=string,JSONPath=.kind
// +apigen:printcolumn:name=Owner,type=string,JSONPath=.metadata.ownerReferences[0].name
// +apigen:printcolumn:name=Ready,type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +apigen:printcolumn:name=Missing,type=string,JSONPath=.spec.missing
// +apigen:printcolumn:name=Deep,type=string,JSONPath=.spec.color.shade
// +apigen:printcolumn:name=Index,type=string,JSONPath=.spec.color[0]
// +apigen:printcolumn:name=Meta,type=string,JSONPath=.metadata.nickname
type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ToySpec   `json:"spec,omitempty"`
	Status ToyStatus `json:"status,omitempty"`
}

// ToySpec is the desired state.
type ToySpec struct {
	Color string `json:"color,omitempty"`
}

// ToyStatus is the observed state.
type ToyStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// ToyList is a list of Toy.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Toy `json:"items"`
}
