// Package v1beta1 is version v1beta1 of the wardle.example.com API group. Flunders are stored
// in this version; v1alpha1 converts to and from it.
//
// +groupName=wardle.example.com
package v1beta1
