package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// ToyReview is a create-only review, as k8s.io/api writes one: no list type, and served by
// storage of the project's own.
//
// +genclient
// +genclient:nonNamespaced
// +genclient:onlyVerbs=create
type ToyReview struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ToyReviewSpec   `json:"spec"`
	Status ToyReviewStatus `json:"status,omitempty"`
}

// ToyReviewSpec is the question.
type ToyReviewSpec struct {
	Name string `json:"name,omitempty"`
}

// ToyReviewStatus is the answer.
type ToyReviewStatus struct {
	Allowed bool `json:"allowed,omitempty"`
}

// Toy has client-gen's tag and no list type, but all of its verbs: client-gen generates its
// client, and the server cannot serve it without a list.
//
// +genclient
type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ToyReviewSpec `json:"spec,omitempty"`
}
