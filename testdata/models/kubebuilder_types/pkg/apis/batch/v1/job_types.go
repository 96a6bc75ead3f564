package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// JobSpec is the desired state of a Job.
type JobSpec struct {
	Parallelism int32 `json:"parallelism,omitempty"`
}

// JobStatus is the observed state of a Job.
type JobStatus struct {
	Active int32 `json:"active,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// Job is declared as kubebuilder's scaffold declares a kind, with +kubebuilder:object:root=true
// and no +kubebuilder:resource: controller-gen makes a CRD of it, with a status subresource.
type Job struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   JobSpec   `json:"spec,omitempty"`
	Status JobStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// JobList contains a list of Job.
type JobList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Job `json:"items"`
}

// +genclient
// +kubebuilder:object:root=true

// Task has +genclient beside +kubebuilder:object:root=true, as velero's kinds do: it is a CRD's
// kind, whose subresources are its kubebuilder markers' (none here, though it has a Status),
// not a built-in type's.
type Task struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   JobSpec   `json:"spec,omitempty"`
	Status JobStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// TaskList contains a list of Task.
type TaskList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Task `json:"items"`
}
