// Package v1 is a test version.
//
// +groupName=pathclash.example.com
package v1
