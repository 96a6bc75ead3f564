// This file was scaffolded by apigen and is yours to edit.

// Package v1 is version v1 of the toys.example.com API group.
//
// +groupName=toys.example.com
package v1
