package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Toy is a test kind, served in one version.
// +apigen:resource
type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ToySpec `json:"spec,omitempty"`
}

// ToySpec is the desired state.
type ToySpec struct {
	// +kubebuilder:validation:XValidation:rule="self.size >",message="does not compile"
	Color string `json:"color,omitempty"`
	// +kubebuilder:validation:XValidation:rule="self.all(x, self.all(y, x != y))"
	Names []string `json:"names,omitempty"`
}

// ToyList is a list of Toy.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Toy `json:"items"`
}
