package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"example.com/wardle/pkg/apis/shared"
)

// Toy has float fields, which controller-gen accepts with crd:allowDangerousTypes=true (as
// ray-project/kuberay generates its CRDs).
// +apigen:resource
type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ToySpec `json:"spec,omitempty"`
}

// ToySpec is the desired state.
type ToySpec struct {
	CPUs    float32            `json:"cpus,omitempty"`
	Weights []float64          `json:"weights,omitempty"`
	Ratio   *float64           `json:"ratio,omitempty"`
	Shares  map[string]float64 `json:"shares,omitempty"`
	Count   int32              `json:"count,omitempty"`
	// Load's float field, declared in package shared, is served inside Toy too.
	Load shared.Load `json:"load,omitempty"`
}

// ToyList is a list of Toys.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Toy `json:"items"`
}
