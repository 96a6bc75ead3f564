package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TokenCheck asks whether a token is valid. It is written as k8s.io/api writes TokenReview:
// client-gen's tags, a Status field that is the answer, and no list type. Its storage is
// pkg/registry/reviews/tokencheck/storage.go.
//
// +genclient
// +genclient:nonNamespaced
// +genclient:onlyVerbs=create
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type TokenCheck struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   TokenCheckSpec   `json:"spec"`
	Status TokenCheckStatus `json:"status,omitempty"`
}

// TokenCheckSpec is the question.
type TokenCheckSpec struct {
	Token string `json:"token,omitempty"`
}

// TokenCheckStatus is the answer.
type TokenCheckStatus struct {
	Valid bool `json:"valid,omitempty"`
}

// QuotaReview asks whether a namespace may use more, declared with apigen's markers and
// served by the storage stub apigen scaffolds, which answers that create is not implemented.
//
// +apigen:resource
// +apigen:storage:custom:verbs=create
type QuotaReview struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   QuotaReviewSpec   `json:"spec"`
	Status QuotaReviewStatus `json:"status,omitempty"`
}

// QuotaReviewSpec is the question.
type QuotaReviewSpec struct {
	CPU string `json:"cpu,omitempty"`
}

// QuotaReviewStatus is the answer.
type QuotaReviewStatus struct {
	Allowed bool `json:"allowed,omitempty"`
}

// Audit has client-gen's tag and no list type, but no +genclient:onlyVerbs: the server cannot
// serve it (a warning says so), and it gets no client, which would not compile without a
// registered kind.
//
// +genclient
type Audit struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec QuotaReviewSpec `json:"spec,omitempty"`
}
