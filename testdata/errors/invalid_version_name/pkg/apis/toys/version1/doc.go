// Package version1 is a test version.
//
// +groupName=toys.example.com
package version1
