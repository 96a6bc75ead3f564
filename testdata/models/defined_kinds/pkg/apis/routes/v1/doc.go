// Package v1 declares the kinds of routes.example.com.
//
// +groupName=routes.example.com
package v1
