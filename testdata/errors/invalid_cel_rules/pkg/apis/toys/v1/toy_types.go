package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Toy is a test kind.
// +apigen:resource
type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ToySpec `json:"spec,omitempty"`
}

// ToySpec is the desired state.
type ToySpec struct {
	// A CEL rule that does not compile.
	// +kubebuilder:validation:XValidation:rule="self.size() > ",message="too short"
	Color string `json:"color,omitempty"`
	// A rule over every pair of an unbounded list of unbounded strings: beyond the cost limit.
	// +kubebuilder:validation:XValidation:rule="self.all(x, self.all(y, x.matches(y)))",message="expensive"
	Names []string `json:"names,omitempty"`
	// An object whose type has a rule.
	Part Part `json:"part,omitempty"`
}

// Part is a nested type whose rule names a field that does not exist.
// +kubebuilder:validation:XValidation:rule="self.missing == 1",message="no such field"
type Part struct {
	Weight int32 `json:"weight,omitempty"`
}

// ToyList is a list of Toy.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Toy `json:"items"`
}
