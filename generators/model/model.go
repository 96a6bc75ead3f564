// Package model is the group/version/resource model that apigen builds from markers once and
// every emitter reads. It is plain data: no go/ast, no gengo, no jennifer.
package model

import (
	"encoding/json"
	"go/token"
	"strings"
)

// Project is everything apigen generates for one Go module.
type Project struct {
	// Module is the Go module path of the project (from go.mod).
	Module string `json:"module"`
	// Name is the project's short name: the last element of Module. It names the server in
	// logs, the etcd prefix and the admin kubeconfig.
	Name string `json:"name"`
	// Deploy names what runs the server in a cluster; parse fills in the defaults.
	Deploy Deploy   `json:"deploy"`
	Groups []*Group `json:"groups,omitempty"`
}

// Deploy is how the server is deployed in a cluster (+apigen:deploy in pkg/apis/doc.go): the
// manifests under config/generated and the defaults of the server's certs command use it.
type Deploy struct {
	// Namespace is where the server runs.
	Namespace string `json:"namespace"`
	// Name names the Service, Deployment, ServiceAccount, ClusterRole and PodDisruptionBudget.
	Name string `json:"name"`
	// Image is the container image the Deployment runs.
	Image string `json:"image"`
	// Pos is the +apigen:deploy marker's position; zero when every value is a default.
	Pos token.Position `json:"pos,omitzero"`
}

// ServingCertSecret is the kubernetes.io/tls Secret the Deployment mounts: the certs command
// and cert-manager's Certificate write it.
func (d Deploy) ServingCertSecret() string { return d.Name + "-serving-cert" }

// DefaultDeploy returns the deployment of a project named name when +apigen:deploy sets
// nothing: namespace <name>-system, name <name>-apiserver, image <name>-apiserver:latest, with
// name made a DNS label first.
func DefaultDeploy(name string) Deploy {
	label := DNSLabel(name)
	return Deploy{Namespace: label + "-system", Name: label + "-apiserver", Image: label + "-apiserver:latest"}
}

// DNSLabel turns a project name (the last element of a module path) into a DNS label:
// lower case, anything but letters, digits and '-' replaced by '-'.
func DNSLabel(s string) string {
	b := []byte(strings.ToLower(s))
	for i, c := range b {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			b[i] = '-'
		}
	}
	return strings.Trim(string(b), "-")
}

// Group is one API group, e.g. wardle.example.com, served from pkg/apis/<Package>/.
type Group struct {
	// Name is the fully qualified group name from +groupName.
	Name string `json:"name"`
	// Package is the short name of the group's directory under pkg/apis.
	Package  string         `json:"package"`
	Versions []*Version     `json:"versions"`
	Pos      token.Position `json:"pos"`
}

// Version is one version of a group; its Go package holds the types.
type Version struct {
	Name string `json:"name"`
	// Package is the Go import path of the version's types.
	Package string `json:"package"`
	// Dir is the package directory relative to the project root, slash-separated.
	Dir string `json:"dir"`
	// Storage marks the storage version; its types are the group's hub (internal) types.
	Storage   bool           `json:"storage,omitempty"`
	Resources []*Resource    `json:"resources,omitempty"`
	Pos       token.Position `json:"pos"`
}

// Scope says whether a resource lives in a namespace.
type Scope string

const (
	Namespaced Scope = "Namespaced"
	Cluster    Scope = "Cluster"
)

// Resource is one kind served as a REST resource.
type Resource struct {
	Kind     string `json:"kind"`
	ListKind string `json:"listKind"`
	// Plural is the resource name in URLs (flunders); Singular is used by kubectl (flunder).
	Plural     string   `json:"plural"`
	Singular   string   `json:"singular"`
	ShortNames []string `json:"shortNames,omitempty"`
	Categories []string `json:"categories,omitempty"`
	Scope      Scope    `json:"scope"`
	// HasSpec and HasStatus say whether the type has Spec and Status fields.
	HasSpec   bool `json:"hasSpec,omitempty"`
	HasStatus bool `json:"hasStatus,omitempty"`
	// StatusType is the name of the Status field's type when it is declared in the same
	// package, with a leading "*" for a pointer; empty otherwise.
	StatusType   string       `json:"statusType,omitempty"`
	Subresources Subresources `json:"subresources,omitempty"`
	// PrintColumns are kubectl get's extra columns (+apigen:printcolumn), in marker order.
	// They are parsed and checked; no emitter prints them yet.
	PrintColumns []PrintColumn `json:"printColumns,omitempty"`
	// SelectableFields are the JSON paths list and watch may filter on
	// (+apigen:selectablefield). They are parsed and checked; no emitter serves them yet.
	SelectableFields []string `json:"selectableFields,omitempty"`
	// Hooks are methods the user wrote on the type; the generated strategy calls them.
	Hooks Hooks `json:"hooks,omitempty"`
	// Marker is the resource marker as written ("+apigen:resource" or
	// "+kubebuilder:resource"), for error messages; Pos is its position.
	Marker string         `json:"-"`
	Pos    token.Position `json:"pos"`
}

// PrintColumn is one column of kubectl get's table output, as in a CRD's
// additionalPrinterColumns.
type PrintColumn struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format,omitempty"`
	Description string `json:"description,omitempty"`
	Priority    int    `json:"priority,omitempty"`
	JSONPath    string `json:"jsonPath"`
}

// Namespaced reports whether the resource is namespace scoped.
func (r *Resource) Namespaced() bool { return r.Scope == Namespaced }

// Subresources are the subresources served besides the main resource.
type Subresources struct {
	Status bool `json:"status,omitempty"`
}

// Hooks lists the optional strategy hooks a type implements.
type Hooks struct {
	Default          bool `json:"default,omitempty"`          // Default()
	Validate         bool `json:"validate,omitempty"`         // Validate(ctx) field.ErrorList
	ValidateUpdate   bool `json:"validateUpdate,omitempty"`   // ValidateUpdate(ctx, old) field.ErrorList
	PrepareForCreate bool `json:"prepareForCreate,omitempty"` // PrepareForCreate(ctx)
	PrepareForUpdate bool `json:"prepareForUpdate,omitempty"` // PrepareForUpdate(ctx, old)
	Canonicalize     bool `json:"canonicalize,omitempty"`     // Canonicalize()
	WarningsOnCreate bool `json:"warningsOnCreate,omitempty"` // WarningsOnCreate(ctx) []string
	WarningsOnUpdate bool `json:"warningsOnUpdate,omitempty"` // WarningsOnUpdate(ctx, old) []string
}

// StorageVersion returns the group's storage (hub) version.
func (g *Group) StorageVersion() *Version {
	for _, v := range g.Versions {
		if v.Storage {
			return v
		}
	}
	return nil
}

// JSON is the model as apigen generate --dump-model prints it: indented, fields in declaration
// order, positions relative to the project root, so it can serve as a golden file.
func (p *Project) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
