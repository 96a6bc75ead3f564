package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Job's spec inlines Retry and Backoff, which both have a limit: at one depth, each named by
// its JSON tag, they tie, and encoding/json encodes neither. The apply configuration of
// JobSpec carries exactly the keys encoding/json writes (apply_test.go checks).
// +apigen:resource
type Job struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec JobSpec `json:"spec,omitempty"`
}

// JobList is a list of Jobs.
type JobList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Job `json:"items"`
}

// JobSpec inlines Retry and Backoff by pointer (go vet does not look into embedded pointers
// for repeated JSON tags, so this type is vet clean; by value, vet refuses it). The apply
// configurations embed their types' by value, where vet does look.
type JobSpec struct {
	// image to run.
	Image string `json:"image"`

	*Retry   `json:",inline"`
	*Backoff `json:",inline"`

	// fallback holds Retry as a field, where it is whole.
	// +optional
	Fallback *Retry `json:"fallback,omitempty"`
}

// Retry is inlined by JobSpec.
type Retry struct {
	// limit of the retries, which Backoff's ties with in JobSpec.
	// +optional
	Limit *int32 `json:"limit,omitempty"`
	// delay between retries.
	// +optional
	Delay string `json:"delay,omitempty"`
}

// Backoff is inlined by JobSpec.
type Backoff struct {
	// limit of the backoff, which Retry's ties with in JobSpec.
	// +optional
	Limit *int32 `json:"limit,omitempty"`
	// factor of the backoff.
	// +optional
	Factor int32 `json:"factor,omitempty"`
}
