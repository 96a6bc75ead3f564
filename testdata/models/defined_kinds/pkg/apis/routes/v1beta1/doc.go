// Package v1beta1 declares the kinds of routes.example.com as defined types of v1's, as
// sigs.k8s.io/gateway-api's older versions do: the same fields, another version.
//
// +groupName=routes.example.com
package v1beta1
