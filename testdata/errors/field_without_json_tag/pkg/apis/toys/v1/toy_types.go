package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Toy is a test kind.
// +apigen:resource
type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec  ToySpec `json:"spec,omitempty"`
	Owner string
}

// ToySpec is the desired state.
type ToySpec struct {
	Color string          `json:"color,omitempty"`
	Kits  map[string]*Kit `json:"kits,omitempty"`
}

// ToyList is a list of Toy.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Toy `json:"items"`
}

// Part is nested in a spec.
type Part struct {
	Name   string `json:"name"`
	Weight int
	secret string
}

// Kit has parts.
type Kit struct {
	Parts     []Part `json:"parts,omitempty"`
	URL       string `json:",omitempty"`
	TLSConfig string `json:"-"`
}

// Unused is not part of a resource, so it is not checked.
type Unused struct {
	Name string
}
