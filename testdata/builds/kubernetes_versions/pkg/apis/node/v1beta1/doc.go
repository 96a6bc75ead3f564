// Package v1beta1 is laid out as k8s.io/api's node/v1beta1: tags in the package comment, a register.go
// of its own, kinds declared with client-gen's tags only.

// +k8s:deepcopy-gen=package
// +k8s:openapi-gen=true

// +groupName=node.example.com

package v1beta1
