package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Toy is not served in v1, as a CRD version with served: false. A CRD could still store it
// there; apigen stores a kind in a version that serves it, so the storage version marker
// beside it has no effect, and Toy is stored in v1beta1, the only version served.
// +apigen:resource
// +kubebuilder:storageversion
// +kubebuilder:unservedversion
type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ToySpec `json:"spec,omitempty"`
}

// ToySpec is the desired state.
type ToySpec struct {
	Color string `json:"color,omitempty"`
}

// ToyList is a list of Toys.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Toy `json:"items"`
}

// Gadget is unserved in v1, the only version that declares it: it is not served at all.
// +apigen:resource
// +kubebuilder:unservedversion
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// GadgetList is a list of Gadgets.
type GadgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Gadget `json:"items"`
}
