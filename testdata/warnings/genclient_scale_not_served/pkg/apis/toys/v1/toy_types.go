package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Scale is a group's Scale of its own, as extensions/v1beta1 has.
//
// +genclient:noVerbs
type Scale struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Replicas int32 `json:"replicas,omitempty"`
}

// Toy's client methods call a /scale with the group's own Scale, as extensions/v1beta1's
// Deployment does: the server serves only autoscaling/v1's.
//
// +genclient
// +genclient:method=GetScale,verb=get,subresource=scale,result=Scale
type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ToySpec   `json:"spec,omitempty"`
	Status ToyStatus `json:"status,omitempty"`
}

// ToySpec has replicas and no label selector.
type ToySpec struct {
	Replicas *int32 `json:"replicas,omitempty"`
}

// ToyStatus is the observed state.
type ToyStatus struct {
	Replicas int32 `json:"replicas,omitempty"`
}

// ToyList is a list of Toy.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Toy `json:"items"`
}

// Ball's client methods call autoscaling/v1's Scale, but it has no spec.selector to serve it
// from as kube-apiserver's workloads do.
//
// +genclient
// +genclient:method=GetScale,verb=get,subresource=scale,result=k8s.io/api/autoscaling/v1.Scale
// +genclient:method=UpdateScale,verb=update,subresource=scale,input=k8s.io/api/autoscaling/v1.Scale,result=k8s.io/api/autoscaling/v1.Scale
type Ball struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ToySpec   `json:"spec,omitempty"`
	Status ToyStatus `json:"status,omitempty"`
}

// BallList is a list of Ball.
type BallList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Ball `json:"items"`
}
