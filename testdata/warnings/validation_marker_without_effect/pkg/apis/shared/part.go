// Package shared declares a type the toys kind uses: controller-gen's findings on it are
// reported where it is declared, as for the version package's own types.
package shared

// Part is a part of a toy.
type Part struct {
	// +listType=atomic
	Name string `json:"name,omitempty"`
}
