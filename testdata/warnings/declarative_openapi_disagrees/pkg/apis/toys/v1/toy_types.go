package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Toy has fields whose +k8s: tags and openapi-gen tags disagree: the served OpenAPI follows the
// openapi-gen tags, as kube-apiserver's does, and declarative validation the +k8s: ones.
// +apigen:resource
type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ToySpec `json:"spec,omitempty"`
}

// ToySpec is the desired state.
type ToySpec struct {
	// +optional
	// +listType=atomic
	// +k8s:optional
	// +k8s:listType=set
	Colors []string `json:"colors,omitempty"`
	// +optional
	// +k8s:required
	Name string `json:"name,omitempty"`
}

// ToyList is a list of Toys.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Toy `json:"items"`
}
