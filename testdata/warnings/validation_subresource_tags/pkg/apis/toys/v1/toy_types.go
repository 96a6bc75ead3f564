package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Toy lists its subresources for validation-gen, as k8s.io/api's types do: its rules run for
// writes through every subresource it serves, so listing one it serves says nothing new, and
// listing one it does not serve (or a body type's +k8s:isSubresource) has no effect.
// +apigen:resource
// +apigen:subresource:status
// +k8s:supportsSubresource="/status"
// +k8s:supportsSubresource="/approval"
type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ToySpec   `json:"spec,omitempty"`
	Status ToyStatus `json:"status,omitempty"`
}

// ToySpec is the desired state.
type ToySpec struct {
	// +k8s:optional
	// +k8s:maxLength=10
	Color string `json:"color,omitempty"`
}

// ToyStatus is the observed state.
type ToyStatus struct {
	// +k8s:optional
	// +k8s:minimum=0
	Played int32 `json:"played,omitempty"`
}

// ToyScale is the body of a scale subresource, as extensions/v1beta1's Scale.
// +k8s:isSubresource="/scale"
type ToyScale struct {
	// +k8s:minimum=0
	Replicas int32 `json:"replicas"`
}

// Gizmo is not a kind.
// +k8s:supportsSubresource="/status"
type Gizmo struct {
	Size int32 `json:"size"`
}

// ToyList is a list of Toys.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Toy `json:"items"`
}
