package v2

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// ReviewSpec is the question a Review asks.
type ReviewSpec struct {
	Subject string `json:"subject,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +apigen:storage:custom:verbs=create

// Review is created to ask a question and never stored, as authentication.k8s.io's
// TokenReview. It is served with create only, so it needs no list type, and the hub, this
// version, declares none; v1 declares one.
type Review struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ReviewSpec `json:"spec,omitempty"`
}

// Hub marks this type as a conversion hub.
func (*Review) Hub() {}

func init() {
	SchemeBuilder.Register(&Review{})
}
