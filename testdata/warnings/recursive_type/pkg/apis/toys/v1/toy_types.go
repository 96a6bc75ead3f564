package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Toy nests Groups in Groups, as k8s.io/api's scheduling Workload nests its templates: a type
// that contains itself, which a CRD's schema cannot express.
// +apigen:resource
type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ToySpec `json:"spec,omitempty"`
}

// ToySpec is the desired state.
type ToySpec struct {
	// +listType=map
	// +listMapKey=name
	// +optional
	Groups []Group `json:"groups,omitempty"`
}

// Group is a named group of groups.
type Group struct {
	// +required
	// +kubebuilder:validation:MaxLength=10
	Name string `json:"name"`
	// +listType=map
	// +listMapKey=name
	// +optional
	Groups []Group `json:"groups,omitempty"`
}

// ToyList is a list of Toys.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Toy `json:"items"`
}
