// Package v1 is a test version.
//
// +groupName=nostorage.example.com
package v1
