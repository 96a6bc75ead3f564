// Package v1beta1 is a test version, converted to and from v1, where Toy is stored.
//
// +groupName=toys.example.com
package v1beta1
