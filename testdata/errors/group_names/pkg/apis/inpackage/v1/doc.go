// Package v1 is a test version.
//
// +groupName=inpackage.example.com
package v1
