package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Card is a test kind.
// +apigen:resource
type Card struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec CardSpec `json:"spec,omitempty"`
	Deck string
	Size Size `json:"size,omitempty"`
}

// CardSpec is the desired state.
type CardSpec struct {
	Color string `json:"color,omitempty"`
}

// CardList is a list of Card.
type CardList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Card `json:"items"`
}
