// Package version1 is a test version.
//
// +groupName=badversion.example.com
package version1
