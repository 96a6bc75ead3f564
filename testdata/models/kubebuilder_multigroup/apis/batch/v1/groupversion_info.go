// Package v1 is kubebuilder's multigroup layout before v4: apis/<group>/<version>.
// +kubebuilder:object:generate=true
// +groupName=batch.tutorial.kubebuilder.io
package v1
