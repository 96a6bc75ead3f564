// Package v1 is a test version.
//
// +groupName=acrossversions.example.com
package v1
