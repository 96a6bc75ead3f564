package markers

import (
	"fmt"
	"path"
	"reflect"
	"strings"

	"k8s.io/gengo/v2/namer"
	gengotypes "k8s.io/gengo/v2/types"

	"github.com/apigen-dev/apigen/generators/model"
)

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

// DeprecatedVersion is the argument struct of +apigen:deprecatedversion (and
// +kubebuilder:deprecatedversion): the warning every request to the kind in this version gets.
type DeprecatedVersion struct {
	Warning *string `marker:"warning,optional"`
}

// Scale is the argument struct of +apigen:subresource:scale (and
// +kubebuilder:subresource:scale), with controller-gen's arguments: the JSON paths of the
// replicas an autoscaling/v1 Scale reads and writes, and of the label selector (serialized,
// or a metav1.LabelSelector).
type Scale struct {
	SpecPath     string `marker:"specpath"`
	StatusPath   string `marker:"statuspath"`
	SelectorPath string `marker:"selectorpath,optional"`
}

// CustomSubresource is the argument struct of +apigen:subresource:custom: a subresource served
// by REST storage the user writes, with the verbs it serves.
type CustomSubresource struct {
	Name  string   `marker:"name"`
	Verbs []string `marker:"verbs"`
}

// CustomStorage is the argument struct of +apigen:storage:custom: the kind is served by REST
// storage the user writes, with the verbs it serves.
type CustomStorage struct {
	Verbs []string `marker:"verbs"`
}

// Deploy is the argument struct of +apigen:deploy: the names of the server in a cluster. An
// argument left out is nil and takes its default; one given empty is an error.
type Deploy struct {
	Namespace *string `marker:"namespace,optional"`
	Name      *string `marker:"name,optional"`
	Image     *string `marker:"image,optional"`
}

// Clients is the argument struct of +apigen:clients: whether the typed clients are generated and
// where. An argument left out is nil and takes its default.
type Clients struct {
	Enabled *bool   `marker:"enabled,optional"`
	Dir     *string `marker:"dir,optional"`
}

// ApplyToProject sets the deployment's names over their defaults. The names are checked with
// the whole project (model.Project.Validate), which knows the defaults they replace.
func (a *Deploy) ApplyToProject(m *Marker, p *model.Project) error {
	d := &p.Deploy
	d.Pos = m.Pos
	if a.Namespace != nil {
		d.Namespace = *a.Namespace
	}
	if a.Name != nil {
		d.Name = *a.Name
	}
	d.Image = d.Name + ":latest"
	if a.Image != nil {
		d.Image = *a.Image
	}
	return nil
}

// ApplyToProject sets the clients' settings over their defaults.
func (a *Clients) ApplyToProject(m *Marker, p *model.Project) error {
	c := &p.Clients
	c.Pos = m.Pos
	if a.Enabled != nil {
		c.Enabled = *a.Enabled
	}
	if a.Dir == nil {
		return nil
	}
	dir := *a.Dir
	// Under pkg/, where generate looks for stale generated files to delete.
	if clean := path.Clean(dir); clean != dir || !strings.HasPrefix(dir, "pkg/") {
		return fmt.Errorf("+%s:dir=%q must be a clean directory under pkg/, such as pkg/client", m.Name, dir)
	}
	c.Dir = dir
	return nil
}

// Domain is the argument of +apigen:domain.
type Domain string

// ApplyToProject sets the domain apigen new-api appends to a short group name.
func (d Domain) ApplyToProject(m *Marker, p *model.Project) error {
	if !model.IsDomain(string(d)) {
		return fmt.Errorf("+%s=%s is not a lower-case DNS domain with a dot (like example.com)", m.Name, d)
	}
	p.Domain = string(d)
	return nil
}

// SQL is the argument of +apigen:sql.
type SQL bool

// ApplyToProject links SQL storage into the server, or leaves it out.
func (s SQL) ApplyToProject(_ *Marker, p *model.Project) error {
	p.SQL = bool(s)
	return nil
}

// GroupName is the argument of +groupName, Kubernetes' name of a version package's group.
type GroupName string

// ApplyToGroup names the group; a package names one group.
func (n GroupName) ApplyToGroup(m *Marker, g *model.Group) error {
	if g.Name != "" && g.Name != string(n) {
		return fmt.Errorf("+%s=%s conflicts with +%s=%s at %s", m.Name, n, m.Name, g.Name, g.Pos)
	}
	g.Name, g.Pos = string(n), m.Pos
	return nil
}

var plural = namer.NewAllLowercasePluralNamer(nil)

// OwnStorageMarker is +apigen:storage:custom with the verbs: apigen's own marker serves a kind
// that +apigen:resource (or +kubebuilder:resource) declares from storage the user writes.
func (*Resource) OwnStorageMarker(verbs string) string {
	return "+" + CustomStorageMarker + ":verbs=" + verbs
}

// DeclareResource gives the resource's kind its names and scope, as this version declares
// them: those given, or a CRD's defaults.
func (a *Resource) DeclareResource(_ *Marker, r *model.Resource) {
	k := r.Declared
	k.Plural = a.Path
	if k.Plural == "" {
		k.Plural = defaultPlural(r.Kind)
	}
	k.Singular = a.Singular
	if k.Singular == "" {
		k.Singular = strings.ToLower(r.Kind)
	}
	k.ShortNames, k.Categories = a.ShortName, a.Categories
	k.Scope = model.Scope(a.Scope)
	if k.Scope == "" {
		k.Scope = model.Namespaced
	}
}

// defaultPlural is a kind's resource name when no marker gives one: a CRD's default, and
// client-gen's (gengo's plural namer, lower-cased).
func defaultPlural(kind string) string {
	return plural.Name(&gengotypes.Type{Name: gengotypes.Name{Name: kind}})
}

// StatusSubresource is the argument of +apigen:subresource:status, which has none.
type StatusSubresource struct{}

// ApplyToResource serves the kind's status as a subresource.
func (StatusSubresource) ApplyToResource(m *Marker, r *model.Resource, _ Kind) error {
	if !r.HasStatus {
		return fmt.Errorf("+%s is set on %s, which has no Status field; add `Status %sStatus` with the json tag \"status,omitempty\", or remove the marker", m.Name, r.Kind, r.Kind)
	}
	r.Subresources.Status = true
	return nil
}

// ApplyToResource serves a /scale subresource, once the kind has checked its paths.
func (*Scale) ApplyToResource(m *Marker, r *model.Resource, kind Kind) error {
	if s := kind.Scale(m); s != nil {
		r.Subresources.Scale = s
	}
	return nil
}

// StorageVersion is the argument of +apigen:storageversion, which has none.
type StorageVersion struct{}

// ApplyToResource asks for the kind to be stored in this version; parse decides the kind's
// storage version from every version's marker (model.Kind.Storage).
func (StorageVersion) ApplyToResource(_ *Marker, r *model.Resource, _ Kind) error {
	r.StorageVersionMarked = true
	return nil
}

// ApplyToResource adds a column to kubectl get's table.
func (a *PrintColumn) ApplyToResource(m *Marker, r *model.Resource, kind Kind) error {
	if !strings.HasPrefix(a.JSONPath, ".") {
		return fmt.Errorf("+%s: JSONPath=%s must start with \".\", as in .spec.replicas", m.Name, a.JSONPath)
	}
	if a.Priority < 0 {
		return fmt.Errorf("+%s: priority=%d must not be negative", m.Name, a.Priority)
	}
	if err := kind.ColumnPath(a.JSONPath); err != nil {
		// controller-gen and kube-apiserver accept such a column and print it empty.
		kind.Warn(m.Pos, "+%s: JSONPath=%s: %v; the column prints empty, as kube-apiserver prints a CRD's", m.Name, a.JSONPath, err)
	}
	r.PrintColumns = append(r.PrintColumns, model.PrintColumn{Name: a.Name, Type: a.Type, Format: a.Format, Description: a.Description, Priority: a.Priority, JSONPath: a.JSONPath})
	return nil
}

// ApplyToResource makes a field selectable, resolved to the kind's Go fields.
func (a *SelectableField) ApplyToResource(m *Marker, r *model.Resource, kind Kind) error {
	path := a.JSONPath
	if !strings.HasPrefix(path, ".") {
		return fmt.Errorf("+%s: JSONPath=%s must start with \".\", as in .spec.color", m.Name, path)
	}
	for _, f := range r.SelectableFields {
		if f.JSONPath == path {
			return fmt.Errorf("+%s: JSONPath=%s is already selectable (%s)", m.Name, path, f.Pos)
		}
	}
	f, err := kind.SelectableField(path)
	if err != nil {
		return fmt.Errorf("+%s: JSONPath=%s: %v", m.Name, path, err)
	}
	f.Pos = m.Pos
	r.SelectableFields = append(r.SelectableFields, f)
	return nil
}

// ApplyToResource deprecates the kind in this version, with the marker's warning or, when it
// gives none, kube-apiserver's (written once the group's versions are known).
func (a *DeprecatedVersion) ApplyToResource(m *Marker, r *model.Resource, _ Kind) error {
	w := a.Warning
	if w != nil && *w == "" {
		return fmt.Errorf("+%s: warning is empty; leave it out for the default warning", m.Name)
	}
	r.Deprecated = true
	if w != nil {
		r.Deprecation = *w
	}
	return nil
}

// SkipVersion is the argument of +kubebuilder:skipversion, which has none.
type SkipVersion struct{}

// ExcludeFromVersion leaves the kind out of this version, as controller-gen leaves the version
// out of the kind's CRD: not served, stored, registered or given a client here. A storage
// version marker on the same type then has no effect, as in controller-gen, whose CRD has the
// version no more: the kind is stored where the group's other versions say (parse).
func (SkipVersion) ExcludeFromVersion(m *Marker, r *model.Resource, v *model.Version, w Warner) {
	if r.StorageVersionMarked {
		w.Warn(m.Pos, "+%s leaves %s out of %s, so the storage version marker beside it has no effect, as in controller-gen, "+
			"whose CRD of %s has no %s to store it in; %s is stored in a version that serves it", m.Name, r.Kind, v.Name, r.Kind, v.Name, r.Kind)
	}
	exclude(m, r, v)
}

// UnservedVersion is the argument of +kubebuilder:unservedversion, which has none.
type UnservedVersion struct{}

// ExcludeFromVersion leaves the kind unserved in this version, as the CRD's version with
// served: false: no request reaches it here, so it is not registered or given a client either.
// A CRD may still store objects in a version it does not serve; apigen stores a kind in a
// version that serves it, so a storage version marker beside this one has no effect (a
// warning), and the group's other versions say where the kind is stored.
func (UnservedVersion) ExcludeFromVersion(m *Marker, r *model.Resource, v *model.Version, w Warner) {
	if r.StorageVersionMarked {
		w.Warn(m.Pos, "+%s leaves %s unserved in %s, so the storage version marker beside it has no effect: apigen stores a kind "+
			"in a version that serves it, where a CRD could store it in %s unserved", m.Name, r.Kind, v.Name, v.Name)
	}
	exclude(m, r, v)
}

// exclude records kind r as left out of version v by marker m.
func exclude(m *Marker, r *model.Resource, v *model.Version) {
	v.Skipped = append(v.Skipped, model.SkippedKind{Kind: r.Kind, ListKind: r.ListKind, Marker: "+" + m.Name, Pos: m.Pos})
}

// Names of the markers the model reads.
const (
	GroupNameMarker         = "groupName"
	ResourceMarker          = "apigen:resource"
	StatusSubresourceMarker = "apigen:subresource:status"
	ScaleSubresource        = "apigen:subresource:scale"
	CustomSubresourceMarker = "apigen:subresource:custom"
	CustomStorageMarker     = "apigen:storage:custom"
	StorageVersionMarker    = "apigen:storageversion"
	PrintColumnMarker       = "apigen:printcolumn"
	SelectableMarker        = "apigen:selectablefield"
	DeprecatedMarker        = "apigen:deprecatedversion"
	DomainMarker            = "apigen:domain"
	DeployMarker            = "apigen:deploy"
	ClientsMarker           = "apigen:clients"
	SQLMarker               = "apigen:sql"
	ProtobufMarker          = "apigen:protobuf"
	SkipVersionMarker       = "kubebuilder:skipversion"
	UnservedVersionMarker   = "kubebuilder:unservedversion"
)

// Apigen returns the registry of every marker apigen understands, with kubebuilder's
// spellings as aliases so CRD types move to an aggregated server unchanged. A marker's effect
// is its argument type's (Args).
func Apigen() *Registry {
	r := NewRegistry()
	registerGenClient(r)
	r.Register(&Definition{
		Name: GroupNameMarker, Target: Package, Value: true, Args: reflect.TypeFor[GroupName](),
		Help:    "the API group of the types in this package (Kubernetes convention, in doc.go)",
		Example: "+groupName=wardle.example.com",
	})
	r.Register(&Definition{
		Name: DomainMarker, Target: Package, Value: true, Args: reflect.TypeFor[Domain](),
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
		Name: ClientsMarker, Target: Package, Args: reflect.TypeFor[Clients](),
		Help: "the typed clientset (with its fake), listers, informers and apply configurations of every served version " +
			"(in pkg/apis/doc.go); defaults: enabled = true, dir = pkg/generated (a directory under pkg/; they go to <dir>/clientset, " +
			"<dir>/listers, <dir>/informers and <dir>/applyconfiguration)",
		Example: "+apigen:clients:dir=pkg/client",
	})
	r.Register(&Definition{
		Name: SQLMarker, Target: Package, Value: true, Args: reflect.TypeFor[SQL](),
		Help: "links SQL storage into the server (in pkg/apis/doc.go): kine with its SQLite, Postgres and MySQL drivers, " +
			"the --datastore-endpoint flags and config/generated/external-datastore; without it (the default) the server " +
			"stores in etcd only, and is smaller",
		Example: "+apigen:sql=true",
	})
	r.Register(&Definition{
		Name: ResourceMarker, Target: Type, Args: reflect.TypeFor[Resource](),
		Help:    "serves the type as a REST resource; defaults: path = lower-case plural of the kind, scope = Namespaced",
		Example: "+apigen:resource:path=flunders,singular=flunder,shortName=fl,scope=Cluster,categories=all",
	}, "kubebuilder:resource")
	r.Register(&Definition{
		Name: StatusSubresourceMarker, Target: Type, Args: reflect.TypeFor[StatusSubresource](),
		Help:    "serves a /status subresource; the main resource then ignores status changes",
		Example: "+apigen:subresource:status",
	}, "kubebuilder:subresource:status")
	r.Register(&Definition{
		Name: ScaleSubresource, Target: Type, Args: reflect.TypeFor[Scale](),
		Help: "serves a /scale subresource (autoscaling/v1 Scale, for kubectl scale and autoscalers), as a CRD's: " +
			"specpath is the desired replicas (an integer under .spec), statuspath the observed replicas (an integer " +
			"under .status), selectorpath the label selector (under .spec or .status, optional): a string, as a CRD's, or a " +
			"metav1.LabelSelector, rendered as kube-apiserver's workloads render theirs",
		Example: "+apigen:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas",
	}, "kubebuilder:subresource:scale")
	r.Register(&Definition{
		Name: CustomSubresourceMarker, Target: Type, Args: reflect.TypeFor[CustomSubresource](),
		Help: "serves /<name> from REST storage you write: func New<Name>REST(main *REST) rest.Storage in " +
			"pkg/registry/<group>/<kind>/<name>.go, which apigen generate scaffolds once; verbs (get, create, update, " +
			"patch, delete, connect) are what it serves, checked when the server starts (repeat for several)",
		Example: "+apigen:subresource:custom:name=approval,verbs=get;update;patch",
	})
	r.Register(&Definition{
		Name: CustomStorageMarker, Target: Type, Args: reflect.TypeFor[CustomStorage](),
		Help: "serves the kind from REST storage you write instead of etcd (a resource computed at request time): " +
			"func NewStorage(scheme *runtime.Scheme) (rest.Storage, error) in pkg/registry/<group>/<kind>/storage.go, which " +
			"apigen generate scaffolds once; verbs (get, list, watch, create, update, patch, delete, deletecollection) are " +
			"what it serves, checked when the server starts",
		Example: "+apigen:storage:custom:verbs=get;list;watch",
	})
	r.Register(&Definition{
		Name: StorageVersionMarker, Target: Type, Args: reflect.TypeFor[StorageVersion](),
		Help:    "marks this version as the one stored in etcd (required when a group has several versions)",
		Example: "+apigen:storageversion",
	}, "kubebuilder:storageversion")
	r.Register(&Definition{
		Name: PrintColumnMarker, Target: Type, Args: reflect.TypeFor[PrintColumn](),
		Help: "a column of kubectl get's table output in this version (repeat the marker for several columns; " +
			"priority > 0 shows only with -o wide); without any, kubectl get prints NAME and AGE, as for a CRD",
		Example: "+apigen:printcolumn:name=Reference,type=string,JSONPath=.spec.reference,priority=0",
	}, "kubebuilder:printcolumn")
	r.Register(&Definition{
		Name: SelectableMarker, Target: Type, Args: reflect.TypeFor[SelectableField](),
		Help: "a field (string, integer or boolean) that list and watch may filter on with --field-selector in this " +
			"version (repeat for several); it must be selectable in the kind's storage version too",
		Example: "+apigen:selectablefield:JSONPath=.spec.reference",
	}, "kubebuilder:selectablefield")
	r.Register(&Definition{
		Name: DeprecatedMarker, Target: Type, Args: reflect.TypeFor[DeprecatedVersion](),
		Help: "marks the kind deprecated in this version, as a CRD version's deprecated field: every request to it gets the " +
			"warning (kubectl prints it), and its OpenAPI operations are marked deprecated; the default warning is " +
			"kube-apiserver's: \"<group>/<version> <Kind> is deprecated; use <group>/<newer version> <Kind>\"",
		Example: "+apigen:deprecatedversion:warning=\"v1alpha1 Flunders are deprecated; use v1beta1\"",
	}, "kubebuilder:deprecatedversion")
	r.Register(&Definition{
		Name: SkipVersionMarker, Target: Type, Args: reflect.TypeFor[SkipVersion](),
		Help: "leaves the kind out of this version, as controller-gen leaves the version out of the kind's CRD: it is not " +
			"served, stored or given a client in this version, and its Go type stays an ordinary type of the package",
		Example: "+kubebuilder:skipversion",
	})
	r.Register(&Definition{
		Name: UnservedVersionMarker, Target: Type, Args: reflect.TypeFor[UnservedVersion](),
		Help: "leaves the kind unserved in this version, as a CRD version with served: false: no request reaches it, and it " +
			"is not registered or given a client in this version; the kind is stored in a version that serves it",
		Example: "+kubebuilder:unservedversion",
	})
	r.Register(&Definition{
		Name: "kubebuilder:object:root", Target: Type, Value: true, Args: reflect.TypeFor[ObjectRoot](),
		Help: "a type with ObjectMeta that carries it is a kind, served as controller-gen makes a CRD of it: with a CRD's " +
			"default names, namespaced, its subresources from its kubebuilder markers (+kubebuilder:resource and " +
			"+apigen:resource name and scope it; over +genclient, it makes the kind a CRD's)",
		Example: "+kubebuilder:object:root=true",
	})
	// kube.DeepCopy reads the type-level form itself, as deepcopy-gen's own type tag.
	const objectGenerateHelp = "accepted for compatibility with kubebuilder types: apigen generates deepcopy for every " +
		"API package; =false on a type leaves the type out, as controller-gen does (its deepcopy methods are then the user's)"
	r.Register(&Definition{
		Name: "kubebuilder:object:generate", Target: Package, Value: true, Args: reflect.TypeFor[bool](),
		Help:    objectGenerateHelp,
		Example: "+kubebuilder:object:generate=true",
	})
	r.Register(&Definition{
		Name: "kubebuilder:object:generate", Target: Type, Value: true, Args: reflect.TypeFor[bool](),
		Help:    objectGenerateHelp,
		Example: "+kubebuilder:object:generate=false",
	})
	// The protobuf generator reads both forms itself.
	const protobufHelp = "=false leaves the package's kinds, or this kind and its list, without the protobuf methods apigen " +
		"generates (zz_generated.protobuf.go, generated.proto): the group is then served in JSON only, as the server offers " +
		"protobuf for a group only when every kind of it has protobuf"
	r.Register(&Definition{
		Name: ProtobufMarker, Target: Package, Value: true, Args: reflect.TypeFor[bool](),
		Help:    protobufHelp,
		Example: "+apigen:protobuf=false",
	})
	r.Register(&Definition{
		Name: ProtobufMarker, Target: Type, Value: true, Args: reflect.TypeFor[bool](),
		Help:    protobufHelp,
		Example: "+apigen:protobuf=false",
	})
	registerFieldDefaults(r)
	registerSchemaMarkers(r)
	return r
}

// ObjectRoot is +kubebuilder:object:root's value.
type ObjectRoot bool

// DeclaresRoot reports whether the marker makes its type a root type.
func (o ObjectRoot) DeclaresRoot() bool { return bool(o) }

// DeclareResource serves the kind as controller-gen's CRD of it: a CRD's default names,
// namespaced, no subresource but those its markers add.
func (ObjectRoot) DeclareResource(m *Marker, r *model.Resource) { (&Resource{}).DeclareResource(m, r) }

// OwnStorageMarker is the kubebuilder family's: apigen's custom storage marker.
func (ObjectRoot) OwnStorageMarker(verbs string) string { return (&Resource{}).OwnStorageMarker(verbs) }
