// Package v2 is a test version.
//
// +groupName=nostorage.example.com
package v2
