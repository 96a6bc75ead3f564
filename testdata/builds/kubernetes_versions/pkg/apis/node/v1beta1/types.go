package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +apigen:selectablefield:JSONPath=.handler

// RuntimeClass names a container runtime configuration.
type RuntimeClass struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// handler is the name of the runtime configuration.
	// +required
	Handler string `json:"handler"`

	// overhead is the resource overhead of running a pod with this class.
	// +optional
	Overhead *Overhead `json:"overhead,omitempty"`
}

// Overhead is the resource overhead of a pod.
type Overhead struct {
	// podFixed is the fixed overhead, by resource name.
	// +optional
	PodFixed map[string]string `json:"podFixed,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// RuntimeClassList is a list of RuntimeClass objects.
type RuntimeClassList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []RuntimeClass `json:"items"`
}
