package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Port is one named port of a gizmo.
type Port struct {
	// Name identifies the port in the list.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=15
	Name string `json:"name"`
	// Port is the port number.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port"`
}

// GizmoSpec is the desired state of a Gizmo.
// +kubebuilder:validation:XValidation:rule="!has(self.minReplicas) || self.minReplicas <= self.replicas",message="minReplicas must not exceed replicas"
type GizmoSpec struct {
	// Owner is who runs the gizmo.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9][a-z0-9-]*$`
	Owner string `json:"owner"`

	// Replicas is how many copies run.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	Replicas int32 `json:"replicas"`

	// MinReplicas is the fewest copies that run.
	// +kubebuilder:validation:Minimum=0
	// +optional
	MinReplicas *int32 `json:"minReplicas,omitempty"`

	// Mode is how the gizmo runs.
	// +kubebuilder:validation:Enum=Fast;Slow
	// +optional
	Mode string `json:"mode,omitempty"`

	// Tags are a set of labels.
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=64
	// +optional
	Tags []string `json:"tags,omitempty"`

	// Ports are keyed by name.
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=8
	// +optional
	Ports []Port `json:"ports,omitempty"`

	// Description is free text.
	// +kubebuilder:validation:MaxLength=16384
	// +optional
	Description string `json:"description,omitempty"`
}

// GizmoStatus is the observed state of a Gizmo.
type GizmoStatus struct {
	// ObservedGeneration is the generation last acted on.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions are the latest observations.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Gizmo is a namespaced kind with a spec and a status subresource.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=gizmos,scope=Namespaced
// +kubebuilder:subresource:status
type Gizmo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   GizmoSpec   `json:"spec,omitempty"`
	Status GizmoStatus `json:"status,omitempty"`
}

// GizmoList is a list of Gizmos.
//
// +kubebuilder:object:root=true
type GizmoList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Gizmo `json:"items"`
}
