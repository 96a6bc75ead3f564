// Package v1 declares every name apigen's registration could declare in it.
// +groupName=toys.example.com
package v1
