// Package v1 is the kubebuilder-marker side of the declarative validation comparison
// (go run ./hack/bench/serverload -dv): testdata/gizmo's rules as kubebuilder markers, which
// the generated server enforces through the schema (the object turned into unstructured JSON,
// kube-apiserver's CRD validation). ../../../../k8s holds the same rules as +k8s: tags.
// Gizmo's CEL rule has no +k8s: form and is left out of both, and the owner's pattern is
// the one +k8s:format=k8s-short-name checks (a DNS-1123 label), so the two rule sets are equal.
//
// +groupName=markers.bench.example.com
package v1
