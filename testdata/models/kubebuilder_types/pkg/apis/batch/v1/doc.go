// Package v1 holds types written for kubebuilder, moved unchanged.
//
// +kubebuilder:object:generate=true
// +groupName=batch.tutorial.example.com
package v1
