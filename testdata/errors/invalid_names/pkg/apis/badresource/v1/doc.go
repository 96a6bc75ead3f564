// Package v1 is a test version.
//
// +groupName=badresource.example.com
package v1
