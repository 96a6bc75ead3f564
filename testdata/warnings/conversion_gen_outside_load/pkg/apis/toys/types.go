// Package toys holds the group's internal types, the hub of its versions.
package toys

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Toy is the internal Toy.
type Toy struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	Spec ToySpec
}

// ToySpec is the desired state.
type ToySpec struct {
	Color string
}

// ToyList is a list of Toys.
type ToyList struct {
	metav1.TypeMeta
	metav1.ListMeta
	Items []Toy
}
