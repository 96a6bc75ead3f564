// Package v1 is a test version.
//
// +groupName=routes.example.com
package v1
