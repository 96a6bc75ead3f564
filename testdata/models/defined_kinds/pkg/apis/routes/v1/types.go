package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Route sends traffic somewhere; v1 stores it.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=rt
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
type Route struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec RouteSpec `json:"spec"`

	// Status is what the route is; a new one is pending.
	//
	// +kubebuilder:default={phase: Pending}
	Status RouteStatus `json:"status,omitempty"`
}

// RouteSpec is what a route should be.
type RouteSpec struct {
	// Host is where the traffic goes.
	//
	// +kubebuilder:validation:MinLength=1
	Host string `json:"host"`

	// Weight is the route's share of the traffic.
	//
	// +kubebuilder:default=1
	// +optional
	Weight *int32 `json:"weight,omitempty"`
}

// RouteStatus is what a route is.
type RouteStatus struct {
	// Phase is where the route is in its life.
	Phase string `json:"phase,omitempty"`
}

// +kubebuilder:object:root=true

// RouteList is a list of routes.
type RouteList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Route `json:"items"`
}

// Grant allows a route to send traffic to another namespace; v1beta1 stores it.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=gr
type Grant struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec GrantSpec `json:"spec"`
}

// GrantSpec is what a grant allows.
type GrantSpec struct {
	// From is the namespace that may send traffic.
	From string `json:"from"`
}

// +kubebuilder:object:root=true

// GrantList is a list of grants.
type GrantList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Grant `json:"items"`
}

// Mirror copies a route's traffic somewhere else; only v1 serves it.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource
type Mirror struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec MirrorSpec `json:"spec"`
}

// MirrorSpec is where a mirror copies traffic to.
type MirrorSpec struct {
	// Target is where the copies go.
	Target string `json:"target"`
}

// +kubebuilder:object:root=true

// MirrorList is a list of mirrors.
type MirrorList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Mirror `json:"items"`
}
