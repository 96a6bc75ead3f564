package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Toy carries patch tags as real packages write them: a comment tag repeated, a comment tag
// without its struct tag, a struct tag without its comment tag, and a comment tag that
// disagrees with the struct tag.
// +apigen:resource
type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ToySpec `json:"spec,omitempty"`
}

// ToySpec is the desired state.
type ToySpec struct {
	// +patchMergeKey=name
	// +patchMergeKey=name
	// +patchStrategy=merge
	// +listType=map
	// +listMapKey=name
	Ports []Port `json:"ports,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
	// +patchStrategy=merge
	Tags []string `json:"tags,omitempty"`
	// +listType=atomic
	Names []string `json:"names,omitempty" patchStrategy:"replace"`
	// +patchMergeKey=port
	// +patchStrategy=merge
	// +listType=map
	// +listMapKey=name
	Backends []Port `json:"backends,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
}

// Port is a named port.
type Port struct {
	Name string `json:"name"`
	Port int32  `json:"port"`
}

// ToyList is a list of Toys.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Toy `json:"items"`
}
