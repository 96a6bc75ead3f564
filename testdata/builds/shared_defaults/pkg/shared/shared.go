// Package shared holds types the API packages use, as a pkg/types or a module of common
// types does: no group, no registration.
// Its deepcopy functions are its own (deepcopy.go), as a module ships controller-gen's.
package shared

// ToySpec is a toy's desired state.
type ToySpec struct {
	// Colour defaults through a pointer.
	// +kubebuilder:default=red
	// +kubebuilder:validation:Enum=red;blue
	// +optional
	Colour *string `json:"colour,omitempty"`
	// Size defaults when empty.
	// +kubebuilder:default=3
	// +optional
	Size int32 `json:"size,omitempty"`
	// Policy is a nested struct of this package.
	// +optional
	Policy *Policy `json:"policy,omitempty"`
}

// Policy has a default of its own.
type Policy struct {
	// +kubebuilder:default=Required
	// +optional
	Resolution *string `json:"resolution,omitempty"`
}

// Observed is inlined in a status.
type Observed struct {
	// +kubebuilder:default=-1
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}
