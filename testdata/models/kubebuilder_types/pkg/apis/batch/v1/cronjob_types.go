package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// CronJobSpec is the desired state of a CronJob.
type CronJobSpec struct {
	// Schedule is in Cron format.
	// +kubebuilder:validation:MinLength=0
	Schedule string `json:"schedule"`

	// Suspend stops later runs.
	// +optional
	// +kubebuilder:default=false
	Suspend *bool `json:"suspend,omitempty"`
}

// CronJobStatus is the observed state of a CronJob.
type CronJobStatus struct {
	// LastScheduleTime is when the job last ran.
	// +optional
	LastScheduleTime *metav1.Time `json:"lastScheduleTime,omitempty"`
}

// CronJob runs jobs on a schedule.
//
// +genclient
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=cronjobs,shortName=cj,scope=Namespaced,categories=all
// +kubebuilder:printcolumn:name="Schedule",type=string,JSONPath=`.spec.schedule`
// +kubebuilder:selectablefield:JSONPath=`.spec.schedule`
// +kubebuilder:storageversion
type CronJob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   CronJobSpec   `json:"spec,omitempty"`
	Status CronJobStatus `json:"status,omitempty"`
}

// CronJobList contains a list of CronJob.
//
// +kubebuilder:object:root=true
type CronJobList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []CronJob `json:"items"`
}
