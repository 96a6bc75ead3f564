package v1beta1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Ship sails.
//
// +apigen:resource:shortName=sh,categories=fleet
// +apigen:subresource:status
type Ship struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ShipSpec   `json:"spec,omitempty"`
	Status ShipStatus `json:"status,omitempty"`
}

// ShipSpec is what a ship should be.
type ShipSpec struct {
	// Sailors is how many sail.
	Sailors int32 `json:"sailors,omitempty"`
}

// ShipStatus is what a ship is.
type ShipStatus struct{}

// ShipList is a list of ships.
type ShipList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Ship `json:"items"`
}
