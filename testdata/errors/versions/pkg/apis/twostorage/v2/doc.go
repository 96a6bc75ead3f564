// Package v2 is a test version.
//
// +groupName=twostorage.example.com
package v2
