// Package v1 holds version v1 of the things API.
//
// +groupName=things.example.com
package v1
