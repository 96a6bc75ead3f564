// This file was scaffolded by apigen and is yours to edit.

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ReferenceType says what kind of object a Flunder refers to.
// +enum
type ReferenceType string

const (
	// FlunderReferenceType refers to another Flunder.
	FlunderReferenceType = ReferenceType("Flunder")
	// FischerReferenceType refers to a Fischer.
	FischerReferenceType = ReferenceType("Fischer")
)

// FlunderSpec is the desired state of a Flunder.
type FlunderSpec struct {
	// Reference is the name of another flunder or fischer, depending on ReferenceType.
	// +optional
	Reference string `json:"reference,omitempty"`

	// ReferenceType is the kind of object Reference names; it defaults to Flunder when Reference is set.
	// +optional
	ReferenceType *ReferenceType `json:"referenceType,omitempty"`

	// Replicas is how many copies of the flunder are wanted; kubectl scale sets it through the
	// /scale subresource.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`
}

// FlunderStatus is the observed state of a Flunder.
type FlunderStatus struct {
	// Conditions are the latest observations of the Flunder's state.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// Replicas is how many copies of the flunder there are.
	// +optional
	Replicas int32 `json:"replicas,omitempty"`

	// Selector selects the flunder's copies by label, in the string form of a label selector.
	// +optional
	Selector string `json:"selector,omitempty"`
}

// Flunder is the namespaced example kind of the wardle API, after k8s.io/sample-apiserver.
//
// +apigen:resource:path=flunders,shortName=fl,scope=Namespaced,categories=wardle;all
// +apigen:subresource:status
// +apigen:deprecatedversion
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
// +apigen:printcolumn:name=Reference,type=string,JSONPath=.spec.reference
// +apigen:printcolumn:name=Type,type=string,JSONPath=.spec.referenceType,priority=1
// +apigen:printcolumn:name=Age,type=date,JSONPath=.metadata.creationTimestamp
type Flunder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   FlunderSpec   `json:"spec,omitempty"`
	Status FlunderStatus `json:"status,omitempty"`
}

// FlunderList is a list of Flunder objects.
type FlunderList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Flunder `json:"items"`
}
