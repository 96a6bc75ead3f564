// Package v2 is a test version.
//
// +groupName=toys.example.com
package v2
