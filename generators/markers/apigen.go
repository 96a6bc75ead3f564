package markers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
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
	ClientsMarker     = "apigen:clients"
	// DefaultMarker is Kubernetes' field default (JSON); KubebuilderDefault is kubebuilder's.
	DefaultMarker      = "default"
	KubebuilderDefault = "kubebuilder:default"
)

// ProjectMarkers belong in pkg/apis/doc.go, the project's package, and nowhere else.
var ProjectMarkers = []string{Domain, DeployMarker, ClientsMarker}

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
		Name: ClientsMarker, Target: Package, Args: reflect.TypeFor[Clients](),
		Help: "the typed clientset (with its fake), listers, informers and apply configurations of every served version " +
			"(in pkg/apis/doc.go); defaults: enabled = true, dir = pkg/generated (a directory under pkg/; they go to <dir>/clientset, " +
			"<dir>/listers, <dir>/informers and <dir>/applyconfiguration)",
		Example: "+apigen:clients:dir=pkg/client",
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
		Name: "kubebuilder:object:root", Target: Type, Value: true, Args: reflect.TypeFor[bool](),
		Help:    "accepted for compatibility with kubebuilder types; apigen finds root types itself",
		Example: "+kubebuilder:object:root=true",
	})
	r.Register(&Definition{
		Name: "kubebuilder:object:generate", Target: Package, Value: true, Args: reflect.TypeFor[bool](),
		Help:    "accepted for compatibility with kubebuilder types; apigen generates deepcopy for every API package",
		Example: "+kubebuilder:object:generate=true",
	})
	// kubebuilder's OpenAPI validation and defaulting markers are accepted wherever
	// controller-gen accepts them, so CRD types move over unchanged; apigen does not enforce
	// them yet.
	for _, t := range []Target{Package, Type, Field} {
		r.Register(&Definition{
			Name: "kubebuilder:validation", Target: t, PassThrough: true, NoEffect: "apigen does not enforce validation markers yet",
			Help:    "kubebuilder's validation markers (any +kubebuilder:validation:...), accepted for compatibility and not enforced yet",
			Example: "+kubebuilder:validation:Minimum=1",
		})
	}
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
	return r
}

// FieldDefaultJSON returns the value of a field default marker as compact JSON. rest is the
// marker's text after its name ("=blue", ":=blue" is accepted too). +default takes JSON (or
// a ref(...) to a constant, which defaulter-gen resolves). +kubebuilder:default takes
// controller-gen's syntax: JSON, a bare word for a string, or {a,b} for a list.
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
	val, err := kubebuilderValue(v)
	if err != nil {
		return "", fmt.Errorf("%s is not a value in kubebuilder's syntax (JSON, a bare string, or {a,b} for a list): %v", v, err)
	}
	b, err := json.Marshal(val)
	return string(b), err
}

// kubebuilderValue reads a value in controller-gen's marker syntax.
func kubebuilderValue(v string) (any, error) {
	var out any
	if err := json.Unmarshal([]byte(v), &out); err == nil {
		return out, nil
	}
	if strings.HasPrefix(v, "{") && strings.HasSuffix(v, "}") {
		inner := strings.TrimSpace(v[1 : len(v)-1])
		parts := splitTopLevel(inner)
		if len(parts) > 0 && strings.Contains(parts[0], ":") && !strings.HasPrefix(strings.TrimSpace(parts[0]), "{") {
			m := map[string]any{}
			for _, p := range parts {
				k, val, ok := strings.Cut(p, ":")
				if !ok {
					return nil, fmt.Errorf("%q: %q is not key: value", v, p)
				}
				x, err := kubebuilderValue(strings.TrimSpace(val))
				if err != nil {
					return nil, err
				}
				m[strings.Trim(strings.TrimSpace(k), `"`)] = x
			}
			return m, nil
		}
		list := []any{}
		for _, p := range parts {
			x, err := kubebuilderValue(strings.TrimSpace(p))
			if err != nil {
				return nil, err
			}
			list = append(list, x)
		}
		return list, nil
	}
	if strings.ContainsAny(v, "{}[]\"") {
		return nil, fmt.Errorf("%q is neither JSON nor a bare string", v)
	}
	return v, nil
}

// splitTopLevel splits s at the commas outside braces, brackets and quotes.
func splitTopLevel(s string) []string {
	if s == "" {
		return nil
	}
	var parts []string
	depth, quoted, start := 0, false, 0
	for i, c := range s {
		switch {
		case c == '"' && (i == 0 || s[i-1] != '\\'):
			quoted = !quoted
		case quoted:
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		case c == ',' && depth == 0:
			parts = append(parts, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return append(parts, strings.TrimSpace(s[start:]))
}
