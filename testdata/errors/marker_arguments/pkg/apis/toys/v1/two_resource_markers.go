package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Doll is a test kind.
// +apigen:resource:path=dolls
// +kubebuilder:resource:path=puppets
type Doll struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec DollSpec `json:"spec,omitempty"`
}

// DollSpec is the desired state.
type DollSpec struct {
	Color string `json:"color,omitempty"`
}

// DollList is a list of Doll.
type DollList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Doll `json:"items"`
}
