// Package v1 is a test version.
//
// +groupName=toys.example.com
// +apigen:deploy:name=toys-server
// +apigen:domain=example.com
package v1
