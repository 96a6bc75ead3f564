// Package v1 is the storage version of ships.example.com.
//
// +groupName=ships.example.com
package v1
