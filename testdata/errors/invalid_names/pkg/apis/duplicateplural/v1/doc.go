// Package v1 is a test version.
//
// +groupName=duplicateplural.example.com
package v1
