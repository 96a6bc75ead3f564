// Package v2 is a test version.
//
// +groupName=kindclash.example.com
package v2
