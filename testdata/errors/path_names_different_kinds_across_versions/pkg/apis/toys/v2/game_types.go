package v2

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Game is a test kind.
// +apigen:resource:path=toys
// +apigen:storageversion
type Game struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec GameSpec `json:"spec,omitempty"`
}

// GameSpec is the desired state.
type GameSpec struct {
	Color string `json:"color,omitempty"`
}

// GameList is a list of Game.
type GameList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Game `json:"items"`
}
