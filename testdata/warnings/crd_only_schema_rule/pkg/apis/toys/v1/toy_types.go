package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Toy keys a map-list on an optional field without a default, as k8s.io/api's types do.
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
	Ports []Port `json:"ports,omitempty"`
}

// Port is a named port.
type Port struct {
	// +optional
	Name string `json:"name,omitempty"`
	Port int32  `json:"port"`
}

// ToyList is a list of Toys.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Toy `json:"items"`
}
