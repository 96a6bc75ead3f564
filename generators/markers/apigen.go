package markers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"reflect"
	"strings"

	crdmarkers "sigs.k8s.io/controller-tools/pkg/crd/markers"
	ctmarkers "sigs.k8s.io/controller-tools/pkg/markers"

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

// apply sets the deployment's names over its defaults. The names are checked with the whole
// project (model.Project.Validate), which knows the defaults they replace.
func (a *Deploy) apply(m *Marker, d *model.Deploy) error {
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

// apply sets the clients' settings over their defaults.
func (a *Clients) apply(m *Marker, c *model.Clients) error {
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

// Names of the markers the model reads.
const (
	GroupName               = "groupName"
	ResourceMarker          = "apigen:resource"
	StatusSubresource       = "apigen:subresource:status"
	ScaleSubresource        = "apigen:subresource:scale"
	CustomSubresourceMarker = "apigen:subresource:custom"
	CustomStorageMarker     = "apigen:storage:custom"
	StorageVersion          = "apigen:storageversion"
	PrintColumnMarker       = "apigen:printcolumn"
	SelectableMarker        = "apigen:selectablefield"
	DeprecatedMarker        = "apigen:deprecatedversion"
	Domain                  = "apigen:domain"
	DeployMarker            = "apigen:deploy"
	ClientsMarker           = "apigen:clients"
	// DefaultMarker is Kubernetes' field default (JSON); KubebuilderDefault is kubebuilder's.
	DefaultMarker      = "default"
	KubebuilderDefault = "kubebuilder:default"
)

// Apigen returns the registry of every marker apigen understands, with kubebuilder's
// spellings as aliases so CRD types move to an aggregated server unchanged.
func Apigen() *Registry {
	r := NewRegistry()
	registerGenClient(r)
	r.Register(&Definition{
		Name: GroupName, Target: Package, Value: true,
		Help:    "the API group of the types in this package (Kubernetes convention, in doc.go)",
		Example: "+groupName=wardle.example.com",
	})
	r.Register(&Definition{
		Name: Domain, Target: Package, Value: true,
		Help:    "the domain that apigen new-api appends to a short --group (in pkg/apis/doc.go, written by apigen init)",
		Example: "+apigen:domain=example.com",
		Project: func(m *Marker, p *model.Project) error {
			domain := m.Args.(string)
			if !model.IsDomain(domain) {
				return fmt.Errorf("+%s=%s is not a lower-case DNS domain with a dot (like example.com)", m.Name, domain)
			}
			p.Domain = domain
			return nil
		},
	})
	r.Register(&Definition{
		Name: DeployMarker, Target: Package, Args: reflect.TypeFor[Deploy](),
		Help: "how config/generated deploys the server and what its certs command defaults to (in pkg/apis/doc.go); " +
			"defaults: namespace = <project>-system, name = <project>-apiserver (the Service, Deployment, ServiceAccount " +
			"and ClusterRole; the serving certificate Secret is <name>-serving-cert), image = <name>:latest",
		Example: "+apigen:deploy:namespace=wardle-system,name=wardle-apiserver,image=example.com/wardle:v1",
		Project: func(m *Marker, p *model.Project) error { return m.Args.(*Deploy).apply(m, &p.Deploy) },
	})
	r.Register(&Definition{
		Name: ClientsMarker, Target: Package, Args: reflect.TypeFor[Clients](),
		Help: "the typed clientset (with its fake), listers, informers and apply configurations of every served version " +
			"(in pkg/apis/doc.go); defaults: enabled = true, dir = pkg/generated (a directory under pkg/; they go to <dir>/clientset, " +
			"<dir>/listers, <dir>/informers and <dir>/applyconfiguration)",
		Example: "+apigen:clients:dir=pkg/client",
		Project: func(m *Marker, p *model.Project) error { return m.Args.(*Clients).apply(m, &p.Clients) },
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
		Resource: func(m *Marker, r *model.Resource, _ Kind) error {
			if !r.HasStatus {
				return fmt.Errorf("+%s is set on %s, which has no Status field; add `Status %sStatus` with the json tag \"status,omitempty\", or remove the marker", m.Name, r.Kind, r.Kind)
			}
			r.Subresources.Status = true
			return nil
		},
	}, "kubebuilder:subresource:status")
	r.Register(&Definition{
		Name: ScaleSubresource, Target: Type, Args: reflect.TypeFor[Scale](),
		Help: "serves a /scale subresource (autoscaling/v1 Scale, for kubectl scale and autoscalers), as a CRD's: " +
			"specpath is the desired replicas (an integer under .spec), statuspath the observed replicas (an integer " +
			"under .status), selectorpath the label selector (under .spec or .status, optional): a string, as a CRD's, or a " +
			"metav1.LabelSelector, rendered as kube-apiserver's workloads render theirs",
		Example: "+apigen:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas",
		Resource: func(m *Marker, r *model.Resource, kind Kind) error {
			if s := kind.Scale(m); s != nil {
				r.Subresources.Scale = s
			}
			return nil
		},
	}, "kubebuilder:subresource:scale")
	r.Register(&Definition{
		Name: CustomSubresourceMarker, Target: Type, Args: reflect.TypeFor[CustomSubresource](),
		Help: "serves /<name> from REST storage you write: func New<Name>REST(main *REST) rest.Storage in " +
			"pkg/registry/<group>/<kind>/<name>.go, which apigen generate scaffolds once; verbs (get, create, update, " +
			"patch, delete, connect) are what it serves, checked when the server starts (repeat for several)",
		Example:  "+apigen:subresource:custom:name=approval,verbs=get;update;patch",
		Resource: customSubresource,
	})
	r.Register(&Definition{
		Name: CustomStorageMarker, Target: Type, Args: reflect.TypeFor[CustomStorage](),
		Help: "serves the kind from REST storage you write instead of etcd (a resource computed at request time): " +
			"func NewStorage(scheme *runtime.Scheme) (rest.Storage, error) in pkg/registry/<group>/<kind>/storage.go, which " +
			"apigen generate scaffolds once; verbs (get, list, watch, create, update, patch, delete, deletecollection) are " +
			"what it serves, checked when the server starts",
		Example:  "+apigen:storage:custom:verbs=get;list;watch",
		Resource: customStorage,
	})
	r.Register(&Definition{
		Name: StorageVersion, Target: Type,
		Help:    "marks this version as the one stored in etcd (required when a group has several versions)",
		Example: "+apigen:storageversion",
		Resource: func(_ *Marker, r *model.Resource, _ Kind) error {
			r.Storage = true
			return nil
		},
	}, "kubebuilder:storageversion")
	r.Register(&Definition{
		Name: PrintColumnMarker, Target: Type, Args: reflect.TypeFor[PrintColumn](),
		Help: "a column of kubectl get's table output in this version (repeat the marker for several columns; " +
			"priority > 0 shows only with -o wide); without any, kubectl get prints NAME and AGE, as for a CRD",
		Example: "+apigen:printcolumn:name=Reference,type=string,JSONPath=.spec.reference,priority=0",
		Resource: func(m *Marker, r *model.Resource, kind Kind) error {
			a := m.Args.(*PrintColumn)
			if !strings.HasPrefix(a.JSONPath, ".") {
				return fmt.Errorf("+%s: JSONPath=%s must start with \".\", as in .spec.replicas", m.Name, a.JSONPath)
			}
			if a.Priority < 0 {
				return fmt.Errorf("+%s: priority=%d must not be negative", m.Name, a.Priority)
			}
			if err := kind.ColumnPath(a.JSONPath); err != nil {
				// controller-gen and kube-apiserver accept such a column and print it empty.
				kind.Warn(m, "+%s: JSONPath=%s: %v; the column prints empty, as kube-apiserver prints a CRD's", m.Name, a.JSONPath, err)
			}
			r.PrintColumns = append(r.PrintColumns, model.PrintColumn{Name: a.Name, Type: a.Type, Format: a.Format, Description: a.Description, Priority: a.Priority, JSONPath: a.JSONPath})
			return nil
		},
	}, "kubebuilder:printcolumn")
	r.Register(&Definition{
		Name: SelectableMarker, Target: Type, Args: reflect.TypeFor[SelectableField](),
		Help: "a field (string, integer or boolean) that list and watch may filter on with --field-selector in this " +
			"version (repeat for several); it must be selectable in the kind's storage version too",
		Example: "+apigen:selectablefield:JSONPath=.spec.reference",
		Resource: func(m *Marker, r *model.Resource, kind Kind) error {
			path := m.Args.(*SelectableField).JSONPath
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
		},
	}, "kubebuilder:selectablefield")
	r.Register(&Definition{
		Name: DeprecatedMarker, Target: Type, Args: reflect.TypeFor[DeprecatedVersion](),
		Help: "marks the kind deprecated in this version, as a CRD version's deprecated field: every request to it gets the " +
			"warning (kubectl prints it), and its OpenAPI operations are marked deprecated; the default warning is " +
			"kube-apiserver's: \"<group>/<version> <Kind> is deprecated; use <group>/<newer version> <Kind>\"",
		Example: "+apigen:deprecatedversion:warning=\"v1alpha1 Flunders are deprecated; use v1beta1\"",
		Resource: func(m *Marker, r *model.Resource, _ Kind) error {
			w := m.Args.(*DeprecatedVersion).Warning
			if w != nil && *w == "" {
				return fmt.Errorf("+%s: warning is empty; leave it out for the default warning", m.Name)
			}
			r.Deprecated = true
			if w != nil {
				r.Deprecation = *w
			}
			return nil
		},
	}, "kubebuilder:deprecatedversion")
	r.Register(&Definition{
		Name: "kubebuilder:object:root", Target: Type, Value: true, Args: reflect.TypeFor[bool](),
		Help:    "accepted for compatibility with kubebuilder types; apigen finds root types itself",
		Example: "+kubebuilder:object:root=true",
	})
	r.Register(&Definition{
		Name: "kubebuilder:object:generate", Target: Package, Value: true, Args: reflect.TypeFor[bool](),
		Help:    "accepted for compatibility with kubebuilder types; apigen generates deepcopy for every API package",
		Example: "+kubebuilder:object:generate=true",
	})
	r.Register(&Definition{
		Name: "kubebuilder:default", Target: Type, PassThrough: true, NoEffect: "apigen applies defaults set on fields only",
		Help:    "kubebuilder's default value marker on a type, accepted for compatibility and not applied (put it on the fields)",
		Example: "+kubebuilder:default=1",
	})
	// Field defaults keep the text after the name as written (Marker.Args, "=value"); parse
	// turns it into JSON with FieldDefaultJSON.
	r.Register(&Definition{
		Name: KubebuilderDefault, Target: Field, PassThrough: true, Form: "+kubebuilder:default=<value>",
		Help: "the field's default, applied on decode in every version to a field left at its zero value (a nil pointer, " +
			"\"\", 0, false, an empty list or map); kubebuilder's value syntax: JSON, a bare string, or {a,b} for a list",
		Example: "+kubebuilder:default=blue",
	})
	r.Register(&Definition{
		Name: DefaultMarker, Target: Field, PassThrough: true, Form: "+default=<JSON>, or +default=ref(<constant>)",
		Help:    "the field's default as JSON (Kubernetes' +default tag), applied like +kubebuilder:default",
		Example: `+default="blue"`,
	})
	registerSchemaMarkers(r)
	return r
}

// FieldDefaultJSON returns the value of a field default marker as compact JSON. rest is the
// marker's text after its name ("=blue", ":=blue" is accepted too). +default takes JSON (or
// a ref(...) to a constant, which defaulter-gen resolves). +kubebuilder:default is read by
// controller-gen's own parser: JSON, a bare word for a string, or {a,b} for a list.
func FieldDefaultJSON(name, rest string) (string, error) {
	v, ok := strings.CutPrefix(rest, ":=")
	if !ok {
		v, ok = strings.CutPrefix(rest, "=")
	}
	v = strings.TrimSpace(v)
	if !ok || v == "" {
		return "", fmt.Errorf("expected a value, as in +%s=1", name)
	}
	if name == DefaultMarker {
		if strings.HasPrefix(v, "ref(") && strings.HasSuffix(v, ")") {
			return v, nil
		}
		var out bytes.Buffer
		if err := json.Compact(&out, []byte(v)); err != nil {
			return "", fmt.Errorf("%q is not JSON (a string default is quoted: +default=\"blue\"): %v", v, err)
		}
		return out.String(), nil
	}
	val, err := kubebuilderDefault.Parse("+" + KubebuilderDefault + "=" + v)
	if err != nil {
		return "", fmt.Errorf("%s is not a value in kubebuilder's syntax (JSON, a bare string, or {a,b} for a list): %v", v, err)
	}
	b, err := json.Marshal(val.(crdmarkers.Default).Value)
	return string(b), err
}

// kubebuilderDefault is controller-gen's own +kubebuilder:default, so that a value means
// what it means in a CRD.
var kubebuilderDefault = ctmarkers.Must(ctmarkers.MakeAnyTypeDefinition(KubebuilderDefault, ctmarkers.DescribesField, crdmarkers.Default{}))
