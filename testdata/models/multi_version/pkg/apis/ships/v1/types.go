package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Ship sails.
//
// +apigen:resource:shortName=sh,categories=fleet
// +apigen:subresource:status
// +apigen:storageversion
type Ship struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ShipSpec   `json:"spec,omitempty"`
	Status ShipStatus `json:"status,omitempty"`
}

// ShipSpec is what a ship should be.
type ShipSpec struct {
	// Crew is how many sail.
	Crew int32 `json:"crew,omitempty"`
}

// ShipStatus is what a ship is.
type ShipStatus struct {
	// Afloat says whether it floats.
	Afloat bool `json:"afloat,omitempty"`
}

// ShipList is a list of ships.
type ShipList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Ship `json:"items"`
}

// Dock is where ships rest; it exists only in v1.
//
// +apigen:resource:scope=Cluster
type Dock struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// DockList is a list of docks.
type DockList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Dock `json:"items"`
}
