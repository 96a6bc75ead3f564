package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "example.com/wardle/pkg/apis/routes/v1"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=rt
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Host",type=string,JSONPath=`.spec.host`

// Route is v1's Route in v1beta1.
type Route v1.Route

// +kubebuilder:object:root=true

// RouteList is a list of routes.
type RouteList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Route `json:"items"`
}

type RouteSpec = v1.RouteSpec

type RouteStatus = v1.RouteStatus

// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=gr
// +kubebuilder:storageversion

// Grant is v1's Grant in v1beta1, the version it is stored in.
type Grant v1.Grant

// +kubebuilder:object:root=true

// GrantList is a list of grants.
type GrantList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Grant `json:"items"`
}

// Mirror is v1's Mirror, which v1beta1 does not serve: its CRD has no v1beta1, as
// sigs.k8s.io/gateway-api leaves v1alpha2 out of GRPCRoute's.
//
// +genclient
// +kubebuilder:object:root=true
// +kubebuilder:skipversion
// +kubebuilder:deprecatedversion:warning="v1beta1 Mirrors are not served; use v1"
type Mirror v1.Mirror

// +kubebuilder:object:root=true

// MirrorList is a list of mirrors.
type MirrorList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Mirror `json:"items"`
}

type MirrorSpec = v1.MirrorSpec
