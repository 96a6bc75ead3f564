package v1alpha1

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
	// Target is another toy, where v1's is a MetricTarget of the same field name.
	Target ObjectReference `json:"target"`
	// TargetValue is v1's target.value.
	TargetValue int32 `json:"targetValue"`
}

// ObjectReference names another toy.
type ObjectReference struct {
	Name string `json:"name"`
}

// ToyList is a list of Toy.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Toy `json:"items"`
}
