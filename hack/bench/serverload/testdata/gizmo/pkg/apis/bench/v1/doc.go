// Package v1 is the held-out kind of the CRD comparison (go run ./hack/bench/serverload -crd):
// hack/bench/serverload serves it as a CustomResourceDefinition that controller-gen makes of
// these types, by kube-apiserver, and through the server apigen generates from them, side by
// side. Its markers are kubebuilder's, so both tools read the same validation: bounds,
// patterns, enums, list types and a CEL rule.
//
// +groupName=bench.example.com
package v1
