// Package v1beta1 is the older version of ships.example.com.
//
// +groupName=ships.example.com
package v1beta1
