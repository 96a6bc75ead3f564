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
