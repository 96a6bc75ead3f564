// Package shared declares a type the toys kind uses: controller-gen's findings on it are
// errors where it is declared, as for the version package's own types.
package shared

// Part is a part of a toy.
type Part struct {
	// A bound that is not a number.
	// +kubebuilder:validation:Minimum=abc
	Count int32 `json:"count,omitempty"`
}
