package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Toy is a kind the package registers.
// +kubebuilder:object:root=true
type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ToySpec `json:"spec,omitempty"`
}

// ToySpec is the desired state.
type ToySpec struct {
	Colour string `json:"colour,omitempty"`
}

// +kubebuilder:object:root=true

// ToyList is a list of Toy.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Toy `json:"items"`
}

// +kubebuilder:object:root=true

// WithToys is a duck type other code fills in: a root type for its DeepCopyObject, which no
// SchemeBuilder.Register call registers.
type WithToys struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Toys []ToySpec `json:"toys"`
}

// WithToysList is a list of WithToys.
type WithToysList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []WithToys `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Toy{}, &ToyList{})
}
