package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/conversion"

	v2 "example.com/wardle/api/v2"
)

// ReviewSpec is the question a Review asks; v2 calls it subject.
type ReviewSpec struct {
	User string `json:"user,omitempty"`
}

// +kubebuilder:object:root=true
// +apigen:storage:custom:verbs=create

// Review is served with create only. Unlike its hub, v2, this version declares a list type.
type Review struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ReviewSpec `json:"spec,omitempty"`
}

// +kubebuilder:object:root=true

// ReviewList contains a list of Review, which no verb of Review answers with.
type ReviewList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Review `json:"items"`
}

// ConvertTo converts this Review to the Hub version (v2).
func (src *Review) ConvertTo(dstRaw conversion.Hub) error {
	dst := dstRaw.(*v2.Review)
	dst.ObjectMeta = src.ObjectMeta
	dst.Spec.Subject = src.Spec.User
	return nil
}

// ConvertFrom converts from the Hub version (v2) to this version.
func (dst *Review) ConvertFrom(srcRaw conversion.Hub) error {
	src := srcRaw.(*v2.Review)
	dst.ObjectMeta = src.ObjectMeta
	dst.Spec.User = src.Spec.Subject
	return nil
}

func init() {
	SchemeBuilder.Register(&Review{}, &ReviewList{})
}
