/*
Copyright The Kubernetes Authors.

Licensed under the Apache License, Version 2.0 (the "License").
*/

// k8s.io/api's layout: tags in blocks separated from the package clause by a blank line.

// +k8s:deepcopy-gen=package
// +k8s:openapi-gen=true

// +groupName=coordination.example.com

package v1
