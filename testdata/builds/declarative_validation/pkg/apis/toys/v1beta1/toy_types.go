package v1beta1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"example.com/toys/pkg/apis/shared"
	legacyshared "example.com/toys/pkg/legacy/apis/shared"
)

// Toy validates with declarative validation's tags, as k8s.io/api's types do: one field or
// type per validator family. Its tests (toy_validation_test.go) check each rule through the
// scheme, as the generic registry runs them.
// +apigen:resource
// +apigen:subresource:status
// +apigen:subresource:scale:specpath=.spec.size,statuspath=.status.played
type Toy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ToySpec   `json:"spec,omitempty"`
	Status ToyStatus `json:"status,omitempty"`
}

// ToySpec is the desired state.
type ToySpec struct {
	// +k8s:required
	// +k8s:maxLength=20
	// +k8s:format=k8s-short-name
	Name string `json:"name"`
	// Maker is required, though the JSON leaves it out when empty: the served OpenAPI lists it
	// as required, as kube-apiserver's does for such a field of a built-in type, and only
	// declarative validation enforces it (so an update that leaves it absent ratchets).
	// +k8s:required
	Maker string `json:"maker,omitempty"`
	// Brand is required as k8s.io/api writes a required field, with +required (for openapi-gen)
	// and +k8s:required: published as required, and enforced by declarative validation alone,
	// as kube-apiserver enforces a built-in type's (an update that leaves it absent ratchets,
	// where the schema's required would refuse it: the JSON leaves it out when empty).
	// +required
	// +k8s:required
	Brand string `json:"brand,omitempty"`
	// Shelf is optional in a CRD's schema (+kubebuilder:validation:Optional), but the API
	// declares it required (+k8s:required): published as required, and enforced by declarative
	// validation alone.
	// +kubebuilder:validation:Optional
	// +k8s:required
	Shelf string `json:"shelf,omitempty"`
	// Origin is a type of the project's shared package: its fields' +k8s: tags run and are
	// published here.
	// +k8s:optional
	Origin *shared.Origin `json:"origin,omitempty"`
	// FirstOrigin is a type of another of the project's packages whose path ends as the
	// shared package's does (apis/shared), and named as Origin's type is: its rules run here too.
	// +k8s:optional
	FirstOrigin *legacyshared.Origin `json:"firstOrigin,omitempty"`
	// Batteries is optional, though the JSON has it (as null) when it is nil: not listed as
	// required, and not refused when absent.
	// +k8s:optional
	Batteries *int32 `json:"batteries"`
	// +k8s:optional
	// +k8s:minimum=0
	// +k8s:maximum=5
	Size int32 `json:"size,omitempty"`
	// +k8s:optional
	// +k8s:immutable
	Class string `json:"class,omitempty"`
	// +k8s:optional
	// +k8s:update=NoModify
	Owner string `json:"owner,omitempty"`
	// +k8s:optional
	// +k8s:listType=set
	// +k8s:maxItems=4
	// +k8s:eachVal=+k8s:maxLength=8
	// +k8s:alpha(since:"1.36")=+k8s:minItems=2
	Tags []string `json:"tags,omitempty"`
	// +k8s:optional
	// +k8s:listType=map
	// +k8s:listMapKey=name
	// +k8s:item(name: "http")=+k8s:subfield(port)=+k8s:maximum=8080
	Ports []ToyPort `json:"ports,omitempty"`
	// +k8s:optional
	// +listType=atomic
	// +k8s:listType=atomic
	// +k8s:unique=map
	// +k8s:listMapKey=name
	Slots []ToyPort `json:"slots,omitempty"`
	// +k8s:optional
	// +k8s:eachKey=+k8s:format=k8s-label-key
	// +k8s:maxProperties=3
	Labels map[string]string `json:"labels,omitempty"`
	// +k8s:optional
	Mode ToyMode `json:"mode,omitempty"`
	// +k8s:optional
	// +k8s:unionMember
	Red *string `json:"red,omitempty"`
	// +k8s:optional
	// +k8s:unionMember
	Blue *string `json:"blue,omitempty"`
	// +k8s:optional
	// +k8s:zeroOrOneOfMember
	Left *int32 `json:"left,omitempty"`
	// +k8s:optional
	// +k8s:zeroOrOneOfMember
	Right *int32 `json:"right,omitempty"`
	// +k8s:optional
	// +k8s:maxBytes=8
	Motto string `json:"motto,omitempty"`
	// +k8s:optional
	// +k8s:beta(since:"1.37")=+k8s:neq="none"
	Hint string `json:"hint,omitempty"`
	// +k8s:optional
	// +k8s:opaqueType
	Box *ToyBox `json:"box,omitempty"`
	// +k8s:optional
	// +k8s:ifEnabled(ShortNicknames)=+k8s:maxLength=5
	// +k8s:ifDisabled(ShortNicknames)=+k8s:maxLength=10
	Nickname string `json:"nickname,omitempty"`
	// Template is a Kubernetes type: its own tags are not run here (see the generator).
	// +optional
	Template *corev1.PodTemplateSpec `json:"template,omitempty"`
}

// ToyPort is a port of a toy.
type ToyPort struct {
	// +k8s:required
	Name string `json:"name"`
	// +k8s:minimum=1
	Port int32 `json:"port"`
}

// ToyBox is opaque where ToySpec uses it: its rule runs only where it is not.
type ToyBox struct {
	// +k8s:minimum=1
	Size int32 `json:"size"`
}

// ToyMode is how a toy plays.
// +k8s:enum
type ToyMode string

const (
	// ToyModeFast plays fast.
	ToyModeFast ToyMode = "Fast"
	// ToyModeSlow plays slow.
	ToyModeSlow ToyMode = "Slow"
)

// ToyStatus is the observed state.
type ToyStatus struct {
	// +k8s:optional
	// +k8s:minimum=0
	Played int32 `json:"played,omitempty"`
	// Shelf is required for openapi-gen (+required) and optional for controller-gen, for which
	// kubebuilder's Optional marker wins over +required: the schema and the served OpenAPI have
	// it optional, as a CRD controller-gen makes of these types has it.
	// +required
	// +kubebuilder:validation:Optional
	Shelf string `json:"shelf"`
}

// ToyList is a list of Toys.
type ToyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Toy `json:"items"`
}
