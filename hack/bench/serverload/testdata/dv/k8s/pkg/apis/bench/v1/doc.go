// Package v1 is the +k8s: side of the declarative validation comparison
// (go run ./hack/bench/serverload -dv): the rules of ../../../../markers as +k8s: tags, which
// the generated server runs typed (validation-gen's Validate_ functions).
//
// +groupName=k8s.bench.example.com
package v1
