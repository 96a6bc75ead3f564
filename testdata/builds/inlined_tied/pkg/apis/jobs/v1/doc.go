// Package v1 is a test version.
//
// +groupName=jobs.example.com
package v1
