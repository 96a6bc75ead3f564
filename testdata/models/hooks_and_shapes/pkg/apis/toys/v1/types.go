package v1

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Robot has every hook, a declarative default beside its Default hook, and a pointer status.
//
// +apigen:resource
// +apigen:subresource:status
type Robot struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   RobotSpec    `json:"spec,omitempty"`
	Status *RobotStatus `json:"status,omitempty"`
}

// RobotSpec is a robot's wish.
type RobotSpec struct {
	// Arms counts arms.
	// +kubebuilder:default=2
	Arms int32 `json:"arms,omitempty"`
}

// RobotStatus is a robot's state.
type RobotStatus struct {
	// Charged says whether it is.
	Charged bool `json:"charged,omitempty"`
}

// RobotList is a list of robots.
type RobotList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Robot `json:"items"`
}

func (r *Robot) Default()                                                       {}
func (r *Robot) Validate(ctx context.Context) field.ErrorList                   { return nil }
func (r *Robot) ValidateUpdate(ctx context.Context, old *Robot) field.ErrorList { return nil }
func (r *Robot) PrepareForCreate(ctx context.Context)                           {}
func (r *Robot) PrepareForUpdate(ctx context.Context, old *Robot)               {}
func (r *Robot) Canonicalize()                                                  {}
func (r *Robot) WarningsOnCreate(ctx context.Context) []string                  { return nil }
func (r *Robot) WarningsOnUpdate(ctx context.Context, old *Robot) []string      { return nil }

// Setting is plain data without spec or status.
//
// +apigen:resource:path=settings,singular=setting,scope=Cluster
type Setting struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Value is the setting's value.
	Value string `json:"value,omitempty"`
}

// SettingList is a list of settings.
type SettingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Setting `json:"items"`
}
