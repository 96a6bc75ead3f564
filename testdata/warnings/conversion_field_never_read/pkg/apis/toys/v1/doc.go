// Package v1 is a test version.
//
// +groupName=toys.example.com
package v1
