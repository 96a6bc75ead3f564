package markers

import "reflect"

// Resource is the argument struct of +apigen:resource (and kubebuilder's +kubebuilder:resource).
type Resource struct {
	Path       string   `marker:"path,optional"`
	Singular   string   `marker:"singular,optional"`
	ShortName  []string `marker:"shortName,optional"`
	Scope      string   `marker:"scope,optional,enum=Namespaced|Cluster"`
	Categories []string `marker:"categories,optional"`
}

// PrintColumn is the argument struct of +apigen:printcolumn (and +kubebuilder:printcolumn),
// with the fields and allowed values of a CRD's additionalPrinterColumns.
type PrintColumn struct {
	Name        string `marker:"name"`
	Type        string `marker:"type,enum=integer|number|string|boolean|date"`
	JSONPath    string `marker:"JSONPath"`
	Description string `marker:"description,optional"`
	Priority    int    `marker:"priority,optional"`
	Format      string `marker:"format,optional,enum=int32|int64|float|double|byte|date|date-time|password"`
}

// SelectableField is the argument struct of +apigen:selectablefield (and
// +kubebuilder:selectablefield).
type SelectableField struct {
	JSONPath string `marker:"JSONPath"`
}

// Deploy is the argument struct of +apigen:deploy: the names of the server in a cluster. An
// argument left out is nil and takes its default; one given empty is an error.
type Deploy struct {
	Namespace *string `marker:"namespace,optional"`
	Name      *string `marker:"name,optional"`
	Image     *string `marker:"image,optional"`
}

// Names of the markers the model reads.
const (
	GroupName         = "groupName"
	ResourceMarker    = "apigen:resource"
	StatusSubresource = "apigen:subresource:status"
	StorageVersion    = "apigen:storageversion"
	PrintColumnMarker = "apigen:printcolumn"
	SelectableMarker  = "apigen:selectablefield"
	Domain            = "apigen:domain"
	DeployMarker      = "apigen:deploy"
)

// ProjectMarkers belong in pkg/apis/doc.go, the project's package, and nowhere else.
var ProjectMarkers = []string{Domain, DeployMarker}

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
		Name: DeployMarker, Target: Package, Args: reflect.TypeFor[Deploy](),
		Help: "how config/generated deploys the server and what its certs command defaults to (in pkg/apis/doc.go); " +
			"defaults: namespace = <project>-system, name = <project>-apiserver (the Service, Deployment, ServiceAccount " +
			"and ClusterRole; the serving certificate Secret is <name>-serving-cert), image = <name>:latest",
		Example: "+apigen:deploy:namespace=wardle-system,name=wardle-apiserver,image=example.com/wardle:v1",
	})
	r.Register(&Definition{
		Name: ResourceMarker, Target: Type, Args: reflect.TypeFor[Resource](),
		Help:    "serves the type as a REST resource; defaults: path = lower-case plural of the kind, scope = Namespaced",
		Example: "+apigen:resource:path=flunders,singular=flunder,shortName=fl,scope=Cluster,categories=all",
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
		Name: PrintColumnMarker, Target: Type, Args: reflect.TypeFor[PrintColumn](),
		Help: "a column of kubectl get's table output (repeat the marker for several columns); " +
			"parsed and checked now, printed by the server in a later apigen version",
		Example: "+apigen:printcolumn:name=Reference,type=string,JSONPath=.spec.reference,priority=0",
	}, "kubebuilder:printcolumn")
	r.Register(&Definition{
		Name: SelectableMarker, Target: Type, Args: reflect.TypeFor[SelectableField](),
		Help: "a field that list and watch may filter on with --field-selector (repeat for several); " +
			"parsed and checked now, served in a later apigen version",
		Example: "+apigen:selectablefield:JSONPath=.spec.reference",
	}, "kubebuilder:selectablefield")
	r.Register(&Definition{
		Name: "kubebuilder:object:root", Target: Type, Value: true, Args: reflect.TypeFor[bool](),
		Help:    "accepted for compatibility with kubebuilder types; apigen finds root types itself",
		Example: "+kubebuilder:object:root=true",
	})
	// kubebuilder's OpenAPI validation and defaulting markers are accepted wherever
	// controller-gen accepts them, so CRD types move over unchanged; apigen does not enforce
	// them yet.
	for _, t := range []Target{Package, Type, Field} {
		r.Register(&Definition{
			Name: "kubebuilder:validation", Target: t, PassThrough: true,
			Help:    "kubebuilder's validation markers (any +kubebuilder:validation:...), accepted for compatibility and not enforced yet",
			Example: "+kubebuilder:validation:Minimum=1",
		})
	}
	for _, t := range []Target{Type, Field} {
		r.Register(&Definition{
			Name: "kubebuilder:default", Target: t, PassThrough: true,
			Help:    "kubebuilder's default value marker, accepted for compatibility and not applied yet (write a Default() hook)",
			Example: "+kubebuilder:default=1",
		})
	}
	return r
}
