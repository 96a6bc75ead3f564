package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Port is one named port of a gizmo.
type Port struct {
	// Name identifies the port in the list.
	// +k8s:required
	// +k8s:maxLength=15
	Name string `json:"name"`
	// Port is the port number.
	// +k8s:minimum=1
	// +k8s:maximum=65535
	Port int32 `json:"port"`
}

// Mode is how a gizmo runs.
// +k8s:enum
type Mode string

const (
	// ModeFast runs fast.
	ModeFast Mode = "Fast"
	// ModeSlow runs slow.
	ModeSlow Mode = "Slow"
)

// GizmoSpec is the desired state of a Gizmo.
type GizmoSpec struct {
	// Owner is who runs the gizmo (a DNS-1123 label).
	// +k8s:required
	// +k8s:format=k8s-short-name
	Owner string `json:"owner"`

	// Replicas is how many copies run.
	// +k8s:minimum=0
	// +k8s:maximum=100
	Replicas int32 `json:"replicas"`

	// MinReplicas is the fewest copies that run.
	// +k8s:optional
	// +k8s:minimum=0
	MinReplicas *int32 `json:"minReplicas,omitempty"`

	// Mode is how the gizmo runs.
	// +k8s:optional
	Mode Mode `json:"mode,omitempty"`

	// Tags are a set of labels.
	// +k8s:optional
	// +k8s:listType=set
	// +k8s:maxItems=16
	// +k8s:eachVal=+k8s:maxLength=64
	Tags []string `json:"tags,omitempty"`

	// Ports are keyed by name.
	// +k8s:optional
	// +k8s:listType=map
	// +k8s:listMapKey=name
	// +k8s:maxItems=8
	Ports []Port `json:"ports,omitempty"`

	// Description is free text.
	// +k8s:optional
	// +k8s:maxLength=4096
	Description string `json:"description,omitempty"`
}

// GizmoStatus is the observed state of a Gizmo.
type GizmoStatus struct {
	// ObservedGeneration is the generation last acted on.
	// +k8s:optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions are the latest observations.
	// +k8s:optional
	// +k8s:listType=map
	// +k8s:listMapKey=type
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
