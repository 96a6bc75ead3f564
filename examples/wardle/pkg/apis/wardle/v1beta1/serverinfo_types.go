// This file is yours to edit.

package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ServerInfo reports about the wardle server that answers the request. It is computed when
// asked for and never stored: a read-only kind served by storage of its own
// (pkg/registry/wardle/serverinfo/storage.go), as metrics-server serves its metrics.
//
// +apigen:resource:path=serverinfos,singular=serverinfo,scope=Cluster
// +apigen:storage:custom:verbs=get;list;watch
type ServerInfo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// GoVersion is the Go release the server was built with.
	GoVersion string `json:"goVersion"`
	// StartTime is when the server process started.
	StartTime metav1.Time `json:"startTime"`
}

// ServerInfoList is a list of ServerInfo objects.
type ServerInfoList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []ServerInfo `json:"items"`
}
