package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Puzzle is a test kind.
// +apigen:resorce
type Puzzle struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec PuzzleSpec `json:"spec,omitempty"`
}

// PuzzleSpec is the desired state.
type PuzzleSpec struct {
	Color string `json:"color,omitempty"`
}

// PuzzleList is a list of Puzzle.
type PuzzleList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Puzzle `json:"items"`
}

// Ball is a test kind.
// +apigen:resource:path=Balls
type Ball struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec BallSpec `json:"spec,omitempty"`
}

// BallSpec is the desired state.
type BallSpec struct {
	Color string `json:"color,omitempty"`
}
