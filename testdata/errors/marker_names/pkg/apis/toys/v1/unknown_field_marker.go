package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Drum is a test kind.
// +apigen:resource
type Drum struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec DrumSpec `json:"spec,omitempty"`

	// Size is validated by kubebuilder markers, which are accepted.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:default=3
	// +apigen:optional
	Size int `json:"size,omitempty"`
}

// DrumSpec is the desired state.
type DrumSpec struct {
	Color string `json:"color,omitempty"`
}

// DrumList is a list of Drum.
type DrumList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Drum `json:"items"`
}
