package v2

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// CalendarSpec is the same in every version: conversion-gen converts it, beside CronJob's
// own conversions.
type CalendarSpec struct {
	// +optional
	Holidays []string `json:"holidays,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=calendars
// +kubebuilder:storageversion

// Calendar is the Schema for the calendars API.
type Calendar struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec CalendarSpec `json:"spec,omitempty"`
}

// +kubebuilder:object:root=true

// CalendarList contains a list of Calendar.
type CalendarList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Calendar `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Calendar{}, &CalendarList{})
}
