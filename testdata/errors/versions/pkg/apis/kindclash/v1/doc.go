// Package v1 is a test version.
//
// +groupName=kindclash.example.com
package v1
