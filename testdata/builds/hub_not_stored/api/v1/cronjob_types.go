package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// CronJobSpec defines the desired state of CronJob.
type CronJobSpec struct {
	// Schedule is the schedule in Cron format; v2 calls it cron.
	// +kubebuilder:validation:MinLength=0
	Schedule string `json:"schedule"`

	// +kubebuilder:default=Allow
	// +optional
	ConcurrencyPolicy string `json:"concurrencyPolicy,omitempty"`
}

// CronJobStatus defines the observed state of CronJob.
type CronJobStatus struct {
	// +optional
	LastScheduleTime *metav1.Time `json:"lastScheduleTime,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=cronjobs
// +kubebuilder:storageversion

// CronJob is the Schema for the cronjobs API.
type CronJob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   CronJobSpec   `json:"spec,omitempty"`
	Status CronJobStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// CronJobList contains a list of CronJob.
type CronJobList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CronJob `json:"items"`
}

func init() {
	SchemeBuilder.Register(&CronJob{}, &CronJobList{})
}
