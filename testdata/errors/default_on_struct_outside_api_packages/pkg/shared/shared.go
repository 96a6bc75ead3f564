// Package shared holds types the API packages use; it is no API package.
package shared

// ToySpec is a toy's desired state.
type ToySpec struct {
	// Size is a struct held by value with a default.
	// +kubebuilder:default={width: 3}
	Size Size `json:"size,omitempty"`
}

// Size is a toy's size.
type Size struct {
	Width int32 `json:"width,omitempty"`
}

// DeepCopyInto copies in into out.
func (in *ToySpec) DeepCopyInto(out *ToySpec) { *out = *in }
