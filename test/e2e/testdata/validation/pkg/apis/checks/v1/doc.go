// Package v1 is the API that test/e2e TestValidationDiff serves twice: as
// CustomResourceDefinitions that controller-gen makes of it, by kube-apiserver, and by the
// server apigen generates from it. Its types use every validation marker controller-gen
// documents, in kubebuilder's spelling, so both tools read the same markers.
//
// +groupName=checks.example.com
package v1
