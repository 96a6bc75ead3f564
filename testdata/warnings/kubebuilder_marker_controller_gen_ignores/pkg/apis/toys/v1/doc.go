// Package v1 is a test version.
//
// +kubebuilder:object:generate=true
// +groupName=toys.example.com
package v1
