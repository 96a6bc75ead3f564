package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// GaugeStatus is the observed state of a Gauge.
type GaugeStatus struct {
	// Reading is the last value read.
	// +kubebuilder:validation:Minimum=-1000
	// +kubebuilder:validation:Maximum=1000
	// +optional
	Reading *int64 `json:"reading,omitempty"`
}

// Gauge is a cluster-scoped kind without a spec: its fields are at the top level, next to a
// status subresource.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=gauges,scope=Cluster
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:validation:XValidation:rule="!has(self.low) || !has(self.high) || self.low < self.high",message="low must be below high",reason=FieldValueInvalid
type Gauge struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Unit is what the gauge measures in; a string without omitempty.
	// +kubebuilder:validation:Required
	Unit string `json:"unit"`

	// Low is the lowest value shown.
	// +kubebuilder:validation:Minimum=-1000
	// +optional
	Low *int64 `json:"low,omitempty"`

	// High is the highest value shown.
	// +kubebuilder:validation:Maximum=1000
	// +kubebuilder:default=100
	// +optional
	High *int64 `json:"high,omitempty"`

	// Scale defaults to linear.
	// +kubebuilder:validation:Enum=linear;log
	// +kubebuilder:default=linear
	// +optional
	Scale string `json:"scale,omitempty"`

	Status GaugeStatus `json:"status,omitempty"`
}

// GaugeList is a list of Gauges.
//
// +kubebuilder:object:root=true
type GaugeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Gauge `json:"items"`
}
