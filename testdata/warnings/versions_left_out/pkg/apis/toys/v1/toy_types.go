package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Toy leaves v1 out, as controller-gen leaves it out of the CRD: the storage version marker
// beside it has no effect there either, and Toy is stored in v1beta1, the only version left.
// +apigen:resource
// +kubebuilder:storageversion
// +kubebuilder:skipversion
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

// Gadget leaves out v1, the only version that declares it: controller-gen writes no CRD for
// it, and it is not served.
// +apigen:resource
// +kubebuilder:skipversion
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
