// Package v1beta1 has no doc.go: its tags are in a block, separated by a blank line, above the
// package clause of another file, which is where apigen reads package tags in any file.

// +groupName=coordination.example.com

package v1beta1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +apigen:resource

// +apigen:subresource:status
// Lease is stored in v1. Its markers are in its doc comment and in the block above it.
type Lease struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Status LeaseStatus `json:"status,omitempty"`
}

// LeaseStatus is the lease's status.
type LeaseStatus struct {
	// +optional
	Holder string `json:"holder,omitempty"`
}

// LeaseList is a list of leases.
type LeaseList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Lease `json:"items"`
}
