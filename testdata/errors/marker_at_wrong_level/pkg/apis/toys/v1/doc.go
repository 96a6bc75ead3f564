// Package v1 is a test version.
//
// +groupName=toys.example.com
// +apigen:resource:path=toys
package v1
