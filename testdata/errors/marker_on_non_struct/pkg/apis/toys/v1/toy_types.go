package v1

// Color is not a struct.
// +apigen:resource
type Color string
