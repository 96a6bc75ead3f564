package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +apigen:resource:path=leases,shortName=le
// +apigen:storageversion

// Lease has its markers in the block above its doc comment, separated by a blank line, where
// gengo finds a type's second-closest comment lines.
type Lease struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec LeaseSpec `json:"spec,omitempty"`
}

// LeaseSpec is a lease.
type LeaseSpec struct {
	// +optional
	HolderIdentity *string `json:"holderIdentity,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// LeaseList is a list of leases.
type LeaseList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Lease `json:"items"`
}

type (
	// Candidate is declared in a group of types without a doc comment: as for gengo, the
	// block two lines above its name holds its markers.
	// +apigen:resource:scope=Cluster

	Candidate struct {
		metav1.TypeMeta   `json:",inline"`
		metav1.ObjectMeta `json:"metadata,omitempty"`
	}

	// CandidateList is a list of candidates.
	CandidateList struct {
		metav1.TypeMeta `json:",inline"`
		metav1.ListMeta `json:"metadata,omitempty"`

		Items []Candidate `json:"items"`
	}
)

// +genclient
// +genclient:method=GetScale,verb=get,subresource=scale,result=k8s.io/api/autoscaling/v1.Scale
// +genclient:method=UpdateScale,verb=update,subresource=scale,input=k8s.io/api/autoscaling/v1.Scale,result=k8s.io/api/autoscaling/v1.Scale
// +genclient:method=ApplyScale,verb=apply,subresource=scale,input=k8s.io/api/autoscaling/v1.Scale,result=k8s.io/api/autoscaling/v1.Scale
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Workload is described as k8s.io/api's apps/v1 workloads are, with client-gen's tags only:
// its /scale serves an autoscaling/v1 Scale from spec.replicas, status.replicas and the
// spec's label selector, as kube-apiserver's workloads do.
type Workload struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WorkloadSpec   `json:"spec,omitempty"`
	Status WorkloadStatus `json:"status,omitempty"`
}

// WorkloadSpec is the desired state.
type WorkloadSpec struct {
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`
	// +required
	Selector *metav1.LabelSelector `json:"selector"`
}

// WorkloadStatus is the observed state.
type WorkloadStatus struct {
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// WorkloadList is a list of workloads.
type WorkloadList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Workload `json:"items"`
}
