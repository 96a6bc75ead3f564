package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Mode is how a widget runs: an enum declared on the type.
// +kubebuilder:validation:Enum=Fast;Slow
type Mode string

// Port is one named port of a widget.
type Port struct {
	// Name identifies the port in the list.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=15
	Name string `json:"name"`
	// Port is the port number.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port"`
	// Protocol defaults to TCP.
	// +kubebuilder:default=TCP
	// +kubebuilder:validation:Enum=TCP;UDP
	// +optional
	Protocol string `json:"protocol,omitempty"`
}

// WidgetSpec is the desired state of a Widget.
// +kubebuilder:validation:XValidation:rule="!has(self.minReplicas) || !has(self.replicas) || self.minReplicas <= self.replicas",message="minReplicas must not exceed replicas",fieldPath=".minReplicas",reason=FieldValueForbidden
// +kubebuilder:validation:XValidation:rule="!has(self.color) || self.color != 'red' || !has(self.replicas) || self.replicas <= 5",messageExpression="'a ' + self.color + ' widget runs at most 5 replicas'"
type WidgetSpec struct {
	// Owner is who runs the widget; it never changes.
	// +kubebuilder:validation:MinLength=3
	// +kubebuilder:validation:MaxLength=12
	// +kubebuilder:validation:Pattern=`^[a-z][a-z0-9-]*$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="owner is immutable"
	// +required
	Owner string `json:"owner"`

	// Replicas is how many copies run.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10
	// +kubebuilder:default=1
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// MinReplicas is the fewest copies that run.
	// +kubebuilder:validation:Optional
	MinReplicas *int32 `json:"minReplicas,omitempty"`

	// Percent is strictly between 0 and 100.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:ExclusiveMinimum=true
	// +kubebuilder:validation:Maximum=100
	// +kubebuilder:validation:ExclusiveMaximum=true
	// +optional
	Percent *int32 `json:"percent,omitempty"`

	// Step is a multiple of 5.
	// +kubebuilder:validation:MultipleOf=5
	// +optional
	Step int32 `json:"step,omitempty"`

	// Mode defaults to Fast (the Kubernetes +default marker on a type enum).
	// +default="Fast"
	// +optional
	Mode Mode `json:"mode,omitempty"`

	// Color is an enum declared on the field.
	// +kubebuilder:validation:Enum=red;green;blue
	// +kubebuilder:validation:MaxLength=5
	// +optional
	Color string `json:"color,omitempty"`

	// Contact is an e-mail address.
	// +kubebuilder:validation:Format=email
	// +optional
	Contact string `json:"contact,omitempty"`

	// Ports are keyed by name.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=3
	// +listType=map
	// +listMapKey=name
	// +optional
	Ports []Port `json:"ports,omitempty"`

	// Tags are a set of two to four.
	// +listType=set
	// +kubebuilder:validation:MinItems=2
	// +kubebuilder:validation:MaxItems=4
	// +kubebuilder:validation:UniqueItems=false
	// +kubebuilder:validation:items:MaxLength=10
	// +optional
	Tags []string `json:"tags,omitempty"`

	// Labels hold one or two entries, merged key by key.
	// +kubebuilder:validation:MinProperties=1
	// +kubebuilder:validation:MaxProperties=2
	// +mapType=granular
	// +optional
	Labels map[string]string `json:"labels,omitempty"`

	// Note may be sent as null.
	// +nullable
	// +optional
	Note *string `json:"note,omitempty"`

	// MaxSurge is a number or a percentage.
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:Pattern=`^[0-9]+%$`
	// +optional
	MaxSurge *intstr.IntOrString `json:"maxSurge,omitempty"`

	// Template is a whole Kubernetes object.
	// +kubebuilder:validation:XEmbeddedResource
	// +optional
	Template *runtime.RawExtension `json:"template,omitempty"`

	// Settings keep whatever fields they are given.
	// +kubebuilder:validation:XPreserveUnknownFields
	// +kubebuilder:validation:Type=object
	// +optional
	Settings *runtime.RawExtension `json:"settings,omitempty"`

	// Extra has no schema at all.
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Extra *runtime.RawExtension `json:"extra,omitempty"`

	// Revision only grows, checked on create too (optionalOldSelf).
	// +kubebuilder:validation:XValidation:rule="!oldSelf.hasValue() || self >= oldSelf.value()",optionalOldSelf=true,message="revision must not decrease"
	// +kubebuilder:validation:XValidation:rule="oldSelf.hasValue() || self <= 100",optionalOldSelf=true,message="a new widget starts at revision 100 at most"
	// +optional
	Revision int64 `json:"revision,omitempty"`
}

// WidgetStatus is the observed state of a Widget.
// +kubebuilder:validation:XValidation:rule="!has(self.readyReplicas) || !has(self.phase) || self.phase != 'Pending' || self.readyReplicas == 0",message="a pending widget has no ready replicas"
type WidgetStatus struct {
	// ReadyReplicas is how many copies are ready.
	// +kubebuilder:validation:Minimum=0
	// +optional
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`

	// Phase is where the widget is in its life.
	// +kubebuilder:validation:Enum=Pending;Running;Failed
	// +optional
	Phase string `json:"phase,omitempty"`

	// Conditions are the latest observations.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Widget is a namespaced kind with a spec and a status subresource.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=widgets,scope=Namespaced
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WidgetSpec   `json:"spec,omitempty"`
	Status WidgetStatus `json:"status,omitempty"`
}

// WidgetList is a list of Widgets.
//
// +kubebuilder:object:root=true
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}
