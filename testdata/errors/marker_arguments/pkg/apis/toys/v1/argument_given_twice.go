package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Kite is a test kind.
// +apigen:resource:path=kites,path=planes
type Kite struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec KiteSpec `json:"spec,omitempty"`
}

// KiteSpec is the desired state.
type KiteSpec struct {
	Color string `json:"color,omitempty"`
}

// KiteList is a list of Kite.
type KiteList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Kite `json:"items"`
}
