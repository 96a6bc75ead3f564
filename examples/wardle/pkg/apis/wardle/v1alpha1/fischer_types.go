// This file was scaffolded by apigen and is yours to edit.

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Fischer is the cluster-scoped example kind of the wardle API: it lists the flunders that may
// not be created.
//
// +apigen:resource:path=fischers,scope=Cluster,categories=wardle
type Fischer struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// DisallowedFlunders holds the names of flunders that may not be created.
	// +optional
	// +listType=set
	DisallowedFlunders []string `json:"disallowedFlunders,omitempty"`
}

// FischerList is a list of Fischer objects.
type FischerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Fischer `json:"items"`
}
