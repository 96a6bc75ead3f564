// Package v1 is a test version.
//
// +groupName=twostorage.example.com
package v1
