package v1beta1

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

// FlunderReference names the object a Flunder refers to. In v1alpha1 it was two fields of
// FlunderSpec, reference and referenceType; pkg/apis/wardle/v1alpha1/conversion.go converts.
type FlunderReference struct {
	// Kind is the kind of the referenced object.
	// +kubebuilder:default=Flunder
	// +optional
	Kind ReferenceType `json:"kind,omitempty"`
	// Name is the name of the referenced flunder or fischer.
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	Name string `json:"name"`
}

// FlunderSpec is the desired state of a Flunder.
type FlunderSpec struct {
	// Reference names another flunder or a fischer.
	// +optional
	Reference *FlunderReference `json:"reference,omitempty"`

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
// +apigen:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
// +apigen:subresource:custom:name=approval,verbs=get;update;patch
// +apigen:storageversion
// +apigen:printcolumn:name=Reference,type=string,JSONPath=.spec.reference.name,description=The name of the object the flunder refers to
// +apigen:printcolumn:name=Kind,type=string,JSONPath=.spec.reference.kind,priority=1
// +apigen:printcolumn:name=Age,type=date,JSONPath=.metadata.creationTimestamp
// +apigen:selectablefield:JSONPath=.spec.reference.kind
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
	Items           []Flunder `json:"items"`
}
