// Package v2 is a test version.
//
// +groupName=other.example.com
package v2
