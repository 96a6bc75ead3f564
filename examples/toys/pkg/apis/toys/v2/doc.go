// This file was scaffolded by apigen and is yours to edit.

// Package v2 is version v2 of the toys.example.com API group.
//
// +groupName=toys.example.com
package v2
