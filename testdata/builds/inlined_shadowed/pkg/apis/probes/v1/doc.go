// Package v1 is a test version.
//
// +groupName=probes.example.com
package v1
