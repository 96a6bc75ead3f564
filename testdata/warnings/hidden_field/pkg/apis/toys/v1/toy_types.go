package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Toy's spec and status inline structs some fields of which encoding/json never encodes.
// +apigen:resource
type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ToySpec   `json:"spec,omitempty"`
	Status ToyStatus `json:"status,omitempty"`
}

// ToySpec has a color of its own, shallower than Paint's; Retry's and Backoff's limits are
// at one depth and cancel each other out.
type ToySpec struct {
	// +optional
	Color string `json:"color,omitempty"`

	Paint   `json:",inline"`
	Retry   `json:",inline"`
	Backoff `json:",inline"`
}

// ToyStatus hides Paint's color too: one warning says so for both.
type ToyStatus struct {
	// +optional
	Color string `json:"color,omitempty"`

	Paint `json:",inline"`
}

// Paint is inlined by ToySpec and ToyStatus.
type Paint struct {
	// +optional
	Color string `json:"color,omitempty"`
	// +optional
	Gloss bool `json:"gloss,omitempty"`
}

// Retry is inlined by ToySpec.
type Retry struct {
	// +optional
	Limit int32 `json:"limit,omitempty"`
}

// Backoff is inlined by ToySpec.
type Backoff struct {
	// +optional
	Limit int32 `json:"limit,omitempty"`
	// +optional
	Seconds int32 `json:"seconds,omitempty"`
}

// ToyList is a list of Toy.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Toy `json:"items"`
}

// Label inlines TypeMeta, declared outside the project, and hides its apiVersion: the
// warning is at the inlined member, the line of the project's that leads to the field.
type Label struct {
	metav1.TypeMeta `json:",inline"`

	// +optional
	APIVersion string `json:"apiVersion,omitempty"`
}
