package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Doll is a test kind.
// +kubebuilder:subresource:status
// +apigen:printcolumn:name=Color,type=string,JSONPath=.spec.color
type Doll struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   DollSpec   `json:"spec,omitempty"`
	Status DollStatus `json:"status,omitempty"`
}

// DollSpec is the desired state.
type DollSpec struct {
	Color string `json:"color,omitempty"`
}

// DollStatus is the observed state.
type DollStatus struct {
	Ready bool `json:"ready,omitempty"`
}

// DollList is a list of Doll.
type DollList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Doll `json:"items"`
}
