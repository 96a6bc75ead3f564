package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Toy is a test kind.
// +apigen:resource
// +apigen:storageversion
// +apigen:subresource:custom:name=Approval,verbs=get
// +apigen:subresource:custom:name=status,verbs=get
// +apigen:subresource:custom:name=logs,verbs=get;list
// +apigen:subresource:custom:name=bump,verbs=patch
// +apigen:subresource:custom:name=edit,verbs=get;update
// +apigen:subresource:custom:name=approve,verbs=get;update;patch
// +apigen:subresource:custom:name=approve,verbs=create
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
