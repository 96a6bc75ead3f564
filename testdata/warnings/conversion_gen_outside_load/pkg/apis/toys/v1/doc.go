// Package v1 is a test version. Its conversion-gen tag, as k8s.io/kubernetes writes them,
// names the internal package of another module, which is not among this project's
// dependencies.
//
// +groupName=toys.example.com
// +k8s:conversion-gen=k8s.io/kubernetes/pkg/apis/toys
package v1
