// Package v1 holds version v1 of the gadgets API.
//
// +groupName=gadgets.example.com
package v1
