package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Route declares its status as openshift/api's Route does: neither omitempty nor +optional,
// so its schema requires status, which every create clears (a CRD with such a schema refuses
// every create too).
// +apigen:resource
// +apigen:subresource:status
type Route struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   RouteSpec   `json:"spec"`
	Status RouteStatus `json:"status"`
}

// RouteSpec is the desired state.
type RouteSpec struct {
	// +optional
	Host string `json:"host,omitempty"`
}

// RouteStatus is the observed state.
type RouteStatus struct {
	// +optional
	Ingress []string `json:"ingress,omitempty"`
}

// RouteList is a list of Routes.
type RouteList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Route `json:"items"`
}

// Gateway's status is +optional: nothing to say.
// +apigen:resource
// +apigen:subresource:status
type Gateway struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec RouteSpec `json:"spec"`
	// +optional
	Status RouteStatus `json:"status"`
}

// GatewayList is a list of Gateways.
type GatewayList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Gateway `json:"items"`
}
