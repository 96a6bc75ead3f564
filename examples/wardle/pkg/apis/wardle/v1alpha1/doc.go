// This file was scaffolded by apigen and is yours to edit.

// Package v1alpha1 is version v1alpha1 of the wardle.example.com API group.
//
// +groupName=wardle.example.com
package v1alpha1
