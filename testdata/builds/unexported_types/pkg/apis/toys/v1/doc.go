// Package v1 keeps unexported types of its own beside its kinds.
// +groupName=toys.example.com
package v1
