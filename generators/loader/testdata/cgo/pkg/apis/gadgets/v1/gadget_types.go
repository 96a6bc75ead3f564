// +k8s:openapi-gen=true

package v1

import "example.com/cgo/internal/native"

// Gadget is a gadget.
type Gadget struct {
	Name string `json:"name"`
	// Level is as the C library counts it.
	Level native.Level `json:"level"`
}
