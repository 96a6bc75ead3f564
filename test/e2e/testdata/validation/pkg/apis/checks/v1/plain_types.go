package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PlainSpec has no validation markers: every object of its type satisfies its schema, so the
// generated server skips the schema walk and checks only the metadata, as a CRD's strategy does.
type PlainSpec struct {
	// Size is any number.
	// +optional
	Size int32 `json:"size,omitempty"`

	// Note is any text.
	// +optional
	Note string `json:"note,omitempty"`

	// Since is any time.
	// +optional
	Since *metav1.Time `json:"since,omitempty"`
}

// Plain is a namespaced kind without validation markers.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=plains,scope=Namespaced
// +kubebuilder:storageversion
type Plain struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec PlainSpec `json:"spec,omitempty"`
}

// PlainList is a list of Plains.
//
// +kubebuilder:object:root=true
type PlainList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Plain `json:"items"`
}
