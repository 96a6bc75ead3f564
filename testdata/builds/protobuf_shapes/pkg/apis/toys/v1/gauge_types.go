package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// GaugeSpec holds lists of fixed-size values, whose protobuf size needs no element, a field
// named Size (its size method is ProtoSize then), and has a String of its own, as k8s.io/api's
// DeviceTaint has: the protobuf methods must not declare another.
type GaugeSpec struct {
	Color   string    `json:"color,omitempty"`
	Size    int32     `json:"size,omitempty"`
	Flags   []bool    `json:"flags,omitempty"`
	Weights []float64 `json:"weights,omitempty"`
	Catalog Catalog   `json:"catalog,omitempty"`
}

// String names the gauge's color.
func (s GaugeSpec) String() string { return "gauge " + s.Color }

// Gauge is a resource.
// +apigen:resource
type Gauge struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec GaugeSpec `json:"spec,omitempty"`
}

// GaugeList is a list of gauges.
type GaugeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Gauge `json:"items"`
}
