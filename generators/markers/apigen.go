package markers

import "reflect"

// Resource is the argument struct of +apigen:resource (and kubebuilder's +kubebuilder:resource).
type Resource struct {
	Path       string   `marker:"path,optional"`
	Singular   string   `marker:"singular,optional"`
	ShortName  []string `marker:"shortName,optional"`
	Scope      string   `marker:"scope,optional"`
	Categories []string `marker:"categories,optional"`
}

// Names of the markers the model reads.
const (
	GroupName         = "groupName"
	ResourceMarker    = "apigen:resource"
	StatusSubresource = "apigen:subresource:status"
	StorageVersion    = "apigen:storageversion"
	Domain            = "apigen:domain"
)

// Apigen returns the registry of every marker apigen understands, with kubebuilder's
// spellings as aliases so CRD types move to an aggregated server unchanged.
func Apigen() *Registry {
	r := NewRegistry()
	r.Register(&Definition{
		Name: GroupName, Target: Package, Value: true,
		Help:    "the API group of the types in this package (Kubernetes convention, in doc.go)",
		Example: "+groupName=wardle.example.com",
	})
	r.Register(&Definition{
		Name: Domain, Target: Package, Value: true,
		Help:    "the domain that apigen new-api appends to a short --group (in pkg/apis/doc.go, written by apigen init)",
		Example: "+apigen:domain=example.com",
	})
	r.Register(&Definition{
		Name: ResourceMarker, Target: Type, Args: reflect.TypeFor[Resource](),
		Help:    "serves the type as a REST resource; defaults: path = lower-case plural of the kind, scope = Namespaced",
		Example: "+apigen:resource:path=flunders,singular=flunder,shortName=fl,scope=Namespaced,categories=all",
	}, "kubebuilder:resource")
	r.Register(&Definition{
		Name: StatusSubresource, Target: Type,
		Help:    "serves a /status subresource; the main resource then ignores status changes",
		Example: "+apigen:subresource:status",
	}, "kubebuilder:subresource:status")
	r.Register(&Definition{
		Name: StorageVersion, Target: Type,
		Help:    "marks this version as the one stored in etcd (required when a group has several versions)",
		Example: "+apigen:storageversion",
	}, "kubebuilder:storageversion")
	r.Register(&Definition{
		Name: "kubebuilder:object:root", Target: Type, Value: true,
		Help:    "accepted for compatibility with kubebuilder types; apigen finds root types itself",
		Example: "+kubebuilder:object:root=true",
	})
	return r
}
