// Package v1 is a test version.
//
// +groupName=
package v1
