// Package v2 is a test version.
//
// +groupName=pathclash.example.com
package v2
