// Package v1 is a test version.
//
// +groupName=Bad_Group
package v1
