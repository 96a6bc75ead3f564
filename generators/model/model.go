// Package model is the model that apigen builds from markers once and every emitter reads: each
// group has its versions (the Go packages of its types, with a Resource for each kind a version
// serves) and its kinds, each held once with its names, scope and storage version and the
// versions it is served in, as a CustomResourceDefinition is shaped. It is plain data: no go/ast, no gengo, no
// jennifer. parse fills it, schema adds the schemas, and Project.Validate checks it after both.
package model

import (
	"cmp"
	"encoding/json"
	"go/token"
	"path"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/version"
)

// Project is everything apigen generates for one Go module.
type Project struct {
	// Module is the Go module path of the project (from go.mod).
	Module string `json:"module"`
	// Name is the project's short name: the last element of Module. It names the server in
	// logs, the etcd prefix and the admin kubeconfig.
	Name string `json:"name"`
	// Deploy names what runs the server in a cluster; parse fills in the defaults.
	Deploy Deploy `json:"deploy"`
	// Clients says whether and where the typed clients are generated (+apigen:clients in
	// pkg/apis/doc.go); parse fills in the defaults.
	Clients Clients `json:"clients"`
	// Domain is what apigen new-api appends to a short group name (+apigen:domain in
	// pkg/apis/doc.go, written by apigen init); empty when the project names none.
	Domain string `json:"domain,omitempty"`
	// SQL links SQL storage into the server (+apigen:sql=true in pkg/apis/doc.go): kine with
	// its SQLite, Postgres and MySQL drivers, the --datastore-* flags and the external-datastore
	// deployment component. Without it the server stores in etcd only.
	SQL    bool     `json:"sql,omitempty"`
	Groups []*Group `json:"groups,omitempty"`
	// TypePackages are the import paths of the project's other packages, besides the version
	// packages, that the kinds' types use (a pkg/apis/shared type a kind embeds), sorted: their
	// markers and tags apply inside the kinds, and the served OpenAPI shows their constraints.
	TypePackages []string `json:"typePackages,omitempty"`
	// ModelPackages are the OpenAPI model packages that TypePackages declare
	// (+k8s:openapi-model-package), by import path: openapi-gen names their types' definitions
	// with it instead of the import path.
	ModelPackages map[string]string `json:"modelPackages,omitempty"`
	// ConversionDrops are, by package, the fields of hub types that a conversion to a version
	// without conversion code drops, as a CustomResourceDefinition with conversion strategy
	// None drops them: the round-trip test leaves them empty. Only conversion-gen's run knows
	// which conversions it leaves to apigen, so that run (kube.Conversion) sets them, before the
	// model is validated; the parsed model does not have them.
	ConversionDrops map[string][]HiddenField `json:"-"`
	// Warnings are problems that do not stop generation (markers accepted without effect),
	// sorted by position.
	Warnings ErrorList `json:"-"`
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

// Clients are the generated clients of a project: a typed clientset with its fake, listers,
// informers and apply configurations, each in a directory under Dir.
type Clients struct {
	// Enabled is false when the project turns them off.
	Enabled bool `json:"enabled"`
	// Dir is the project-relative, slash-separated directory that holds clientset/, listers/,
	// informers/ and applyconfiguration/.
	Dir string `json:"dir"`
	// Pos is the +apigen:clients marker's position; zero when every value is a default.
	Pos token.Position `json:"pos,omitzero"`
}

// DefaultClientsDir is where the clients go unless +apigen:clients:dir says otherwise.
const DefaultClientsDir = "pkg/generated"

// DefaultClients are a project's clients when +apigen:clients sets nothing.
func DefaultClients() Clients { return Clients{Enabled: true, Dir: DefaultClientsDir} }

// NewProject returns the project of module with every project-level setting at its default,
// before the markers of pkg/apis/doc.go apply themselves.
func NewProject(module string) *Project {
	name := path.Base(module)
	return &Project{Module: module, Name: name, Deploy: DefaultDeploy(name), Clients: DefaultClients()}
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
	Package  string     `json:"package"`
	Versions []*Version `json:"versions"`
	// Kinds are the group's kinds, each once with the versions that serve it, sorted by name:
	// what is the kind's in every version (where it is stored) is held here, what a version
	// declares of it on the version's Resource.
	Kinds []*Kind `json:"kinds,omitempty"`
	// Internal is the group's own internal version when the project has one: hand-written
	// types in pkg/apis/<Package> (the layout of k8s.io/sample-apiserver). Its types are then
	// every kind's hub, and every version converts to and from them. It is not served.
	Internal *Version `json:"internal,omitempty"`
	// OwnInstall says pkg/apis/<Package>/install is the user's (it declares Install): it
	// registers the group in a scheme, and apigen generates no install file.
	OwnInstall bool `json:"ownInstall,omitempty"`
	// Fuzzer is the import path of the group's fuzzer package, pkg/apis/<Package>/fuzzer as in
	// Kubernetes' own groups, when the project has one: its Funcs fill values the generated
	// round-trip test could not fill at random. Empty otherwise.
	Fuzzer string `json:"fuzzer,omitempty"`
	// FillsRawJSON says the group's types reach apiextensions' JSON (raw JSON, as kubebuilder
	// APIs hold free-form values): the generated round-trip test fills it with valid JSON,
	// where random bytes would not encode.
	FillsRawJSON bool `json:"fillsRawJSON,omitempty"`
	// Protobuf says every kind and list of every served version of the group has protobuf
	// methods (generated, or the types' own): the generated round-trip test covers protobuf
	// too. The protobuf generator sets it.
	Protobuf bool           `json:"-"`
	Pos      token.Position `json:"pos"`
}

// Version is one version of a group; its Go package holds the types.
type Version struct {
	Name string `json:"name"`
	// Package is the Go import path of the version's types.
	Package string `json:"package"`
	// Dir is the package directory relative to the project root, slash-separated.
	Dir       string      `json:"dir"`
	Resources []*Resource `json:"resources,omitempty"`
	// OwnRegistration says the package registers its types itself (it declares AddToScheme,
	// and localSchemeBuilder, as Kubernetes' and register-gen's register.go files do): apigen
	// generates no register file for it, except one that registers the conversions of kinds
	// that convert with their own ConvertTo and ConvertFrom.
	OwnRegistration bool `json:"ownRegistration,omitempty"`
	// DeclaresLocalSchemeBuilder says the generated register file of a package that registers
	// its types itself declares localSchemeBuilder = &SchemeBuilder, which the conversions
	// generated into the package register with: the package's register.go has a
	// runtime.SchemeBuilder but no localSchemeBuilder (k8s.io/api's older versions).
	DeclaresLocalSchemeBuilder bool `json:"declaresLocalSchemeBuilder,omitempty"`
	// ControllerRuntime says the package registers its kinds with controller-runtime's
	// scheme.Builder (kubebuilder's groupversion_info.go: GroupVersion, SchemeBuilder,
	// AddToScheme, and SchemeBuilder.Register calls in init): apigen's register file adds only
	// the defaults, defaulting hooks and field selectors to that builder.
	ControllerRuntime bool `json:"controllerRuntime,omitempty"`
	// InstallRegistersDefaults says the package registers its types itself but not its
	// defaults (k8s.io/api's packages leave them to k8s.io/kubernetes), and a kind of it has
	// defaults, its own package's or another's its fields reach: the generated install
	// package registers them. kube.Defaulter decides it from DefaultsLeftToInstall.
	InstallRegistersDefaults bool `json:"installRegistersDefaults,omitempty"`
	// DefaultsLeftToInstall says the package registers its types itself and never calls
	// RegisterDefaults (parse reads it from the package's files).
	DefaultsLeftToInstall bool `json:"-"`
	// InstallRegistersValidations says the package registers its types itself, without a
	// localSchemeBuilder, and has declarative validation (kube.Validation sets it): the generated
	// install package registers the validations.
	InstallRegistersValidations bool `json:"-"`
	// DeclPos is where each package-level name (type, function, variable, constant) of the
	// package is declared, for errors about declarations that are not resources (a
	// conversion function missing or mistyped, a hand-written registration).
	DeclPos map[string]token.Position `json:"-"`
	// Skipped are the kinds the package declares whose type here carries
	// +kubebuilder:skipversion (controller-gen leaves this version out of their CRDs) or
	// +kubebuilder:unservedversion (the CRD's version is not served), so they have no
	// resource, storage, discovery entry, registration or client in this version.
	// Their Go types stay the package's, runtime.Objects as controller-gen makes a root type.
	Skipped []SkippedKind `json:"skipped,omitempty"`
	// Defaults are the declarative defaults of the package's struct fields (+default,
	// +kubebuilder:default), sorted by position.
	Defaults []*FieldDefault `json:"defaults,omitempty"`
	// HiddenFields are the fields under the inlined (json:",inline") members of the package's
	// structs that encoding/json never encodes, because another field of the same JSON name
	// hides them (prometheus-operator's ProbeSpec hides the authorization of the HTTPConfig
	// it inlines); sorted by type. The generated round-trip test leaves them empty. With them,
	// the pointers whose empty value comes back nil (EmptyBecomesNil): inlined pointers to
	// structs, and pointers to maps and slices.
	HiddenFields []HiddenField `json:"hiddenFields,omitempty"`
	// HandConversions are the package's hand-written Convert_ functions, by name: what the
	// conversion generator needs to tell one that drops a field it would have converted.
	HandConversions map[string]HandConversion `json:"handConversions,omitempty"`
	// MethodReads are the names the package's ConvertTo and ConvertFrom methods select
	// (x.Name), sorted: a field conversion-gen leaves to a Convert_ function may be converted
	// there instead.
	MethodReads []string `json:"methodReads,omitempty"`
	// Structs are the struct types of the package that the version's kinds reach through their
	// fields, the kinds' own included, by name, as the API reference documents them (parse
	// reads them from the load).
	Structs map[string]*StructDoc `json:"-"`
	Pos     token.Position        `json:"pos"`
}

// StructDoc is a struct type of a version's package as the API reference documents it.
type StructDoc struct {
	Name string
	// Doc is the type's Go doc comment without its marker and tag lines, on one line.
	Doc string
	// Fields are the JSON fields in declaration order, with inline members' fields in their
	// place; TypeMeta (apiVersion and kind) is left out, as every kind has it.
	Fields []FieldDoc
}

// FieldDoc is one JSON field of a StructDoc.
type FieldDoc struct {
	// Name is the Go field's name; JSON its JSON name.
	Name, JSON string
	// Optional says the field is +optional or omitempty.
	Optional bool
	Type     TypeDoc
	// Doc is the field's Go doc comment without its marker and tag lines, on one line.
	Doc string
	// Structs are the structs of the version's package the field's type reaches (each has a
	// StructDoc of its own), by name.
	Structs []string
}

// TypeDoc is the type of a FieldDoc, pointers left out.
type TypeDoc struct {
	// Kind is what the type is: TypeBuiltin, TypeBytes (a []byte, base64 in JSON), TypeSlice,
	// TypeMap (of string keys), TypeExternal (a type of another package), TypeStruct (a struct of
	// the version's package) or TypeNamed (another named type of the version's package).
	Kind TypeDocKind
	// Name is the type's name: a builtin's, a named or struct type's.
	Name string
	// Package is an external type's import path.
	Package string
	// Elem is the element type of a slice or map, and the underlying type of a named one.
	Elem *TypeDoc
	// Enum are the values of an +enum named type, sorted.
	Enum []string
}

// TypeDocKind is the kind of a TypeDoc.
type TypeDocKind int

// The kinds of TypeDoc.
const (
	TypeBuiltin TypeDocKind = iota
	TypeBytes
	TypeSlice
	TypeMap
	TypeExternal
	TypeStruct
	TypeNamed
)

// HiddenField is a field no value of which survives JSON (Version.HiddenFields).
type HiddenField struct {
	// Type is the package's struct type that inlines it.
	Type string `json:"type"`
	// Go is the path of Go fields from Type to the field, each marked when it is a pointer
	// that may be nil.
	Go []FieldStep `json:"go"`
	// EmptyBecomesNil says the field is no hidden one but a pointer whose zero pointee comes
	// back nil: an inlined pointer to a struct (an empty struct encodes to no key), or a
	// pointer to a map or slice (a nil one encodes as null).
	EmptyBecomesNil bool           `json:"emptyBecomesNil,omitempty"`
	Pos             token.Position `json:"pos"` // Type's declaration
}

// SkippedKind is a kind left out of a version (Version.Skipped).
type SkippedKind struct {
	Kind string `json:"kind"`
	// ListKind is the kind's list type, or empty when the package declares none.
	ListKind string `json:"listKind,omitempty"`
	// Marker is the marker that leaves the kind out, as written; Pos is its position.
	Marker string         `json:"marker"`
	Pos    token.Position `json:"pos"`
}

// HandConversion is what a hand-written conversion function does with its output.
type HandConversion struct {
	// CallsAuto says it calls conversion-gen's autoConvert_ function of the same name, which
	// converts every field conversion-gen can.
	CallsAuto bool `json:"callsAuto,omitempty"`
	// Whole says it uses its output as a whole (assigns *out, or passes out on): it may set
	// any field.
	Whole bool `json:"whole,omitempty"`
	// Sets are the Go names of the output's fields it mentions (out.Field), sorted.
	Sets []string `json:"sets,omitempty"`
	// Reads are the paths of the input's fields and methods it mentions, each the chain of
	// selectors from in, dotted (Spec.Key for in.Spec.Key, &in.Spec.Key or in.Spec.Key.X;
	// Items.Name for in.Items[i].Name; Spec.Get for in.Spec.Get()), sorted: what it, and the
	// conversions of the fields it reads into, may convert of the fields conversion-gen
	// leaves to them.
	Reads []string `json:"reads,omitempty"`
	// Hands are the paths (as in Reads) whose value it uses whole: copies it (assigns,
	// returns, ranges over it), or passes it to another function than a Convert_ or
	// autoConvert_ one (reflect.DeepEqual(in.Spec, x), a JSON round trip); it may read any
	// field of that value. Sorted.
	Hands []string `json:"hands,omitempty"`
	// ReadsWhole says it uses its input as a whole (passes in to another function than its
	// autoConvert_, or copies *in): it may read any field.
	ReadsWhole bool           `json:"readsWhole,omitempty"`
	Pos        token.Position `json:"pos"`
}

// FieldDefault is a field's default value, applied whenever an object of any version is
// decoded (request bodies and objects read from etcd) to a field left at its zero value.
type FieldDefault struct {
	// Type and Field name the Go struct and field.
	Type  string `json:"type"`
	Field string `json:"field"`
	// JSON is the value as JSON; Marker is the marker as written.
	JSON   string         `json:"json"`
	Marker string         `json:"marker"`
	Pos    token.Position `json:"pos"`
	// AtZero says the field is neither a pointer nor omitempty, of a type that is not a
	// struct, and its default is not its zero value: the server applies the default where a
	// client sends the zero value (the Go type cannot tell it from absent), which the served
	// OpenAPI cannot say (generate warns at the marker). Set by the OpenAPI run.
	AtZero bool `json:"-"`
}

// Kind is one kind of a group with the versions that serve it, shaped as a
// CustomResourceDefinition is: what apiextensions' CustomResourceDefinitionSpec holds once for
// the kind (its names, its scope, its storage version) lives here, what its
// CustomResourceDefinitionVersion holds per version (schema, subresources, print columns,
// selectable fields, deprecation, served) on each version's Resource, which points back here
// (Resource.Of). Where a CRD flags storage on each version and validation wants exactly one,
// the model cannot have two, and a kind without one (Storage nil) fails validation. Where a
// CRD's versions share one spec.names and spec.scope, the kind's versions share one path and
// scope (parse reports a version that declares others), and the kind is served with its
// storage version's singular, short names, categories and list kind, whatever another
// version's marker declares (Resource.Declared; parse warns about a short name or category
// that is not applied). The storage a kind is served from is one for every version
// too: its custom storage is held here.
type Kind struct {
	// Name is the kind (Flunder).
	Name string `json:"name"`
	// Plural is the resource name in URLs (flunders); Singular is used by kubectl (flunder).
	// With ShortNames, Categories and ListKind they are a CRD's spec.names, whose kind is Name.
	Plural     string   `json:"plural"`
	Singular   string   `json:"singular"`
	ShortNames []string `json:"shortNames,omitempty"`
	Categories []string `json:"categories,omitempty"`
	// ListKind is the kind's list kind: its storage version's list type, or empty when the
	// storage version declares none (a kind with no list verb needs none). Each version's
	// package declares its own list type (Resource.ListKind) and registers it, but lists
	// convert between versions only when the kind has one.
	ListKind string `json:"listKind,omitempty"`
	Scope    Scope  `json:"scope"`
	// CustomStorage replaces the kind's etcd store with REST storage the user writes
	// (+apigen:storage:custom), or is nil. One storage serves every version, so every version
	// declares it with the same verbs (parse checks them against the storage version's).
	CustomStorage *CustomStorage `json:"customStorage,omitempty"`
	// Storage is the version the kind is stored in: the version that carries
	// +apigen:storageversion (or +kubebuilder:storageversion), the only version that serves the
	// kind, or, for a kind declared BuiltInStyle, the most preferred version (parse decides).
	// Its Go type is the kind's hub unless the group has internal types (Group.Hub). Nil when
	// the versions do not settle it, which validation reports.
	Storage *Version `json:"-"`
	// Versions are the versions that serve the kind, in the group's version priority
	// (Group.ByPriority); each holds the kind's Resource in that version.
	Versions []*Version `json:"-"`
}

// MarshalJSON names the kind's versions, which the group's versions list in full.
func (k *Kind) MarshalJSON() ([]byte, error) {
	var names []string
	for _, v := range k.Versions {
		names = append(names, v.Name)
	}
	storage := ""
	if k.Storage != nil {
		storage = k.Storage.Name
	}
	// The kind's own fields as they are (its versions are json:"-"), then the versions by name.
	type fields Kind
	return json.Marshal(struct {
		*fields
		StorageVersion string   `json:"storageVersion,omitempty"`
		Versions       []string `json:"versions"`
	}{(*fields)(k), storage, names})
}

// Namespaced reports whether the kind is namespace scoped.
func (k *Kind) Namespaced() bool { return k.Scope == Namespaced }

// Stored returns the kind's storage version and its resource there, or nils when no version
// stores it (a model that failed validation).
func (k *Kind) Stored() (*Version, *Resource) {
	if k.Storage == nil {
		return nil, nil
	}
	return k.Storage, k.Storage.Kind(k.Name)
}

// Resources returns the kind's resource in each version that serves it, in version priority.
func (k *Kind) Resources() []*Resource {
	var out []*Resource
	for _, v := range k.Versions {
		out = append(out, v.Kind(k.Name))
	}
	return out
}

// Scope says whether a resource lives in a namespace.
type Scope string

const (
	Namespaced Scope = "Namespaced"
	Cluster    Scope = "Cluster"
)

// Resource is one kind served as a REST resource.
type Resource struct {
	Kind string `json:"kind"`
	// Of is the kind this is a version of, which holds what every version of the kind shares:
	// its names, scope and custom storage.
	Of *Kind `json:"-"`
	// Declared is the kind as this version's markers declare it (its names, scope and custom
	// storage): what they ask, which parse holds the versions to (one path, scope and custom
	// storage) and settles the kind from (Of, its storage version's). Validation checks each
	// version's names at its marker, and the API reference shows each version's.
	Declared *Kind `json:"-"`
	// ListKind is the kind's list type (FlunderList), or empty for a kind the package declares
	// no list for: a virtual kind that only its own storage serves, with verbs that return no
	// list (a create-only review, as TokenReview). Nothing registers or serves a list then.
	// Unlike a CRD's listKind it is per version: it names a Go type of this version's
	// package, which one version of a virtual kind may declare and another not.
	ListKind string `json:"listKind,omitempty"`
	// HasSpec and HasStatus say whether the type has Spec and Status fields.
	HasSpec   bool `json:"hasSpec,omitempty"`
	HasStatus bool `json:"hasStatus,omitempty"`
	// StatusType is the name of the Status field's type when it is declared in the same
	// package, with a leading "*" for a pointer; empty otherwise.
	StatusType   string       `json:"statusType,omitempty"`
	Subresources Subresources `json:"subresources,omitempty"`
	// StorageVersionMarked says the type carries +apigen:storageversion (or
	// +kubebuilder:storageversion) in this version: what the marker asks, which parse weighs
	// when it decides the kind's storage version (Kind.Storage, the one answer).
	StorageVersionMarked bool `json:"-"`
	// BuiltInStyle says the kind is declared with client-gen's +genclient alone, as k8s.io/api
	// declares its kinds, so kube-apiserver's rules for its built-in kinds apply where they
	// differ from a custom resource's: when several versions declare the kind and none marks
	// it +apigen:storageversion, it is stored in the most preferred of them (ByPriority), where
	// a CRD needs the marker; and +genclient:onlyVerbs and +genclient:method shape what is
	// served, not only the client.
	BuiltInStyle bool `json:"builtInStyle,omitempty"`
	// PrintColumns are kubectl get's extra columns (+apigen:printcolumn), in marker order.
	// They are parsed and checked; no emitter prints them yet.
	PrintColumns []PrintColumn `json:"printColumns,omitempty"`
	// SelectableFields are the fields list and watch may filter on with a field selector
	// (+apigen:selectablefield), in marker order.
	SelectableFields []SelectableField `json:"selectableFields,omitempty"`
	// Deprecated is set when the version is deprecated for the kind
	// (+apigen:deprecatedversion); Deprecation is then the warning every request to it gets,
	// kube-apiserver's default unless the marker gives one (parse writes the default once the
	// kind's versions are known, Group.Kinds).
	Deprecated  bool   `json:"deprecated,omitempty"`
	Deprecation string `json:"deprecation,omitempty"`
	// Hooks are methods the user wrote on the type; the generated strategy calls them.
	Hooks Hooks `json:"hooks,omitempty"`
	// ObjectDefaulter says defaulter-gen writes SetObjectDefaults_<Kind> for the kind in this
	// version (it has declarative defaults or SetDefaults_ functions to apply), which the
	// generated Default hook calls first. Only defaulter-gen knows, so its run (kube.Defaulter)
	// sets it, before apigen's own emitters run; the parsed model does not have it.
	ObjectDefaulter bool `json:"-"`
	// DeclarativeValidation says the kind's type has +k8s: validation rules (its own, its
	// fields' or their types'), which kube.Validation generates and registers with the scheme
	// and the kind's strategies run. Set by that run, like ObjectDefaulter.
	DeclarativeValidation bool `json:"-"`
	// ValidationOptions are the validation options the rules depend on (+k8s:ifEnabled,
	// +k8s:ifDisabled), which the strategies define, disabled. Set with DeclarativeValidation.
	ValidationOptions []string `json:"-"`
	// Conversion is the part the kind's type in this version plays in controller-runtime's
	// conversions (sigs.k8s.io/controller-runtime/pkg/conversion), as a kubebuilder API with
	// several versions writes them; empty when it plays none.
	Conversion ConversionRole `json:"conversion,omitempty"`
	// ConversionPos is where the method that gives the type its part is declared: Hub, or
	// ConvertTo.
	ConversionPos token.Position `json:"conversionPos,omitzero"`
	// Schema is the kind's OpenAPI v3 schema in this version as JSON, as its
	// CustomResourceDefinition would carry it (validation markers, CEL rules, defaults), without
	// descriptions: the server enforces it as kube-apiserver enforces a CRD's.
	Schema json.RawMessage `json:"-"`
	// SchemaSatisfiedByType says no object of the kind's Go type in this version can break
	// Schema (it constrains only what the type guarantees: see schema.satisfiedByType), so the
	// server checks the objects' metadata as a CRD's but skips the schema walk.
	SchemaSatisfiedByType bool `json:"schemaSatisfiedByType,omitempty"`
	// SchemaSatisfiedOutsideStatus says the same of every part but the status, for a kind with
	// a status subresource, in its hub's version: creates (which clear the status, written then
	// as none) and main resource updates (which keep the stored one) skip the schema walk too.
	SchemaSatisfiedOutsideStatus bool `json:"schemaSatisfiedOutsideStatus,omitempty"`
	// OpenAPISchema is the schema the served OpenAPI documents show, where it differs from
	// Schema: it lists a +k8s:required field (or a +k8s:optional one written +required) as
	// required, as kube-apiserver publishes it, where declarative validation alone enforces its
	// requiredness. Empty when the two are the same.
	OpenAPISchema json.RawMessage `json:"-"`
	// Marker is the resource marker as written ("+apigen:resource" or
	// "+kubebuilder:resource"), for error messages; Pos is its position.
	Marker string         `json:"-"`
	Pos    token.Position `json:"pos"`
}

// ConversionRole is the part a kind's type plays in controller-runtime's conversions.
type ConversionRole string

const (
	// ConversionHub is a type with a Hub() method (conversion.Hub): the kind's hub, which must be
	// its storage version.
	ConversionHub ConversionRole = "hub"
	// ConversionSpoke is a type with ConvertTo(conversion.Hub) error and
	// ConvertFrom(conversion.Hub) error (conversion.Convertible): the server converts it to and
	// from the kind's hub by calling them, and conversion-gen leaves it alone.
	ConversionSpoke ConversionRole = "spoke"
)

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

// SelectableField is a field of a kind that field selectors may name, as in a CRD's
// selectableFields.
type SelectableField struct {
	// JSONPath is the field as the marker names it (.spec.color); the field selector's label
	// is the same without the leading dot.
	JSONPath string `json:"jsonPath"`
	// Go is the path of Go fields from the kind to the value (Spec, Color), each marked when
	// it is a pointer that may be nil.
	Go []FieldStep `json:"go"`
	// Type is the value's type: string, integer or boolean.
	Type string         `json:"type"`
	Pos  token.Position `json:"pos"`
}

// Label is the field selector label of the field (spec.color).
func (f SelectableField) Label() string { return strings.TrimPrefix(f.JSONPath, ".") }

// FieldStep is one Go field on the way to a selectable field's value.
type FieldStep struct {
	Name    string `json:"name"`
	Pointer bool   `json:"pointer,omitempty"`
}

// Subresources are the subresources served besides the main resource.
type Subresources struct {
	Status bool `json:"status,omitempty"`
	// Scale is the /scale subresource (+apigen:subresource:scale), or nil.
	Scale *Scale `json:"scale,omitempty"`
	// Custom are subresources served by REST storage the user writes
	// (+apigen:subresource:custom), sorted by name.
	Custom []CustomSubresource `json:"custom,omitempty"`
}

// CustomSubresource is a subresource served by a user-written rest.Storage.
type CustomSubresource struct {
	// Name is the subresource's path element (approval in flunders/approval).
	Name string `json:"name"`
	// Verbs are the verbs it serves, as discovery lists them, sorted: get, create, update,
	// patch, delete, connect.
	Verbs []string       `json:"verbs"`
	Pos   token.Position `json:"pos"`
}

// GoName is the name in the user's constructor, New<GoName>REST: approval → Approval,
// pod-logs → PodLogs.
func (c CustomSubresource) GoName() string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(c.Name, func(r rune) bool { return r == '-' || r == '.' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// CustomStorage is a kind served by a user-written rest.Storage instead of an etcd store.
type CustomStorage struct {
	// Verbs are the verbs it serves, as discovery lists them, sorted.
	Verbs []string       `json:"verbs"`
	Pos   token.Position `json:"pos"`
}

// ListVerbs are the verbs whose answer is a list of the kind: a kind served with one of them
// needs a list type.
var ListVerbs = []string{"deletecollection", "list", "watch"}

// NeedsList reports whether the kind is served with a verb that answers with a list of it:
// always by an etcd store, and by custom storage when one of its verbs is list, watch or
// deletecollection. A kind that does not can be served without a list type (ListKind empty).
func (k *Kind) NeedsList() bool {
	if k.CustomStorage == nil {
		return true
	}
	for _, v := range k.CustomStorage.Verbs {
		if slices.Contains(ListVerbs, v) {
			return true
		}
	}
	return false
}

// Scale is a kind's /scale subresource: an autoscaling/v1 Scale read from and written to
// these fields, as for a CRD's scale subresource.
type Scale struct {
	// SpecReplicasPath is the desired replicas (.spec.replicas), an integer field.
	SpecReplicasPath string `json:"specReplicasPath"`
	// StatusReplicasPath is the observed replicas (.status.replicas), an integer field.
	StatusReplicasPath string `json:"statusReplicasPath"`
	// LabelSelectorPath is the label selector, or "": a string field holding its serialized
	// form (a CRD's labelSelectorPath), or a metav1.LabelSelector (LabelSelectorStructured).
	LabelSelectorPath string `json:"labelSelectorPath,omitempty"`
	// LabelSelectorStructured says the field at LabelSelectorPath is a metav1.LabelSelector,
	// which the Scale's status.selector renders as kube-apiserver's apps storage does
	// (metav1.LabelSelectorAsSelector(...).String()), where a CRD's names a string field; the
	// Scale is then validated as that storage validates it (a negative spec.replicas is a 422
	// on the Scale).
	LabelSelectorStructured bool           `json:"labelSelectorStructured,omitempty"`
	Pos                     token.Position `json:"pos"`
}

// Same reports whether two scale subresources read and write the same fields.
func (s *Scale) Same(o *Scale) bool {
	return s.SpecReplicasPath == o.SpecReplicasPath && s.StatusReplicasPath == o.StatusReplicasPath &&
		s.LabelSelectorPath == o.LabelSelectorPath && s.LabelSelectorStructured == o.LabelSelectorStructured
}

// Hooks lists the optional strategy hooks a type implements.
type Hooks struct {
	Default        bool `json:"default,omitempty"`        // Default()
	Validate       bool `json:"validate,omitempty"`       // Validate(ctx) field.ErrorList
	ValidateUpdate bool `json:"validateUpdate,omitempty"` // ValidateUpdate(ctx, old) field.ErrorList
	// ValidateStatusUpdate(ctx, old) field.ErrorList checks a write to the status subresource.
	ValidateStatusUpdate bool `json:"validateStatusUpdate,omitempty"`
	PrepareForCreate     bool `json:"prepareForCreate,omitempty"` // PrepareForCreate(ctx)
	PrepareForUpdate     bool `json:"prepareForUpdate,omitempty"` // PrepareForUpdate(ctx, old)
	Canonicalize         bool `json:"canonicalize,omitempty"`     // Canonicalize()
	WarningsOnCreate     bool `json:"warningsOnCreate,omitempty"` // WarningsOnCreate(ctx) []string
	WarningsOnUpdate     bool `json:"warningsOnUpdate,omitempty"` // WarningsOnUpdate(ctx, old) []string
}

// ConvertsByMethods reports whether the kind converts to and from its hub in this version
// with its own ConvertTo and ConvertFrom methods (controller-runtime's), not with Convert_
// functions.
func (r *Resource) ConvertsByMethods() bool { return r.Conversion == ConversionSpoke }

// Kind returns the resource of a kind in this version, or nil.
func (v *Version) Kind(kind string) *Resource {
	for _, r := range v.Resources {
		if r.Kind == kind {
			return r
		}
	}
	return nil
}

// Kind returns the group's kind named name, or nil.
func (g *Group) Kind(name string) *Kind {
	for _, k := range g.Kinds {
		if k.Name == name {
			return k
		}
	}
	return nil
}

// Stored returns the version a kind is stored in and its resource there, or nils when no
// version of the group stores it (a model that failed validation).
func (g *Group) Stored(kind string) (*Version, *Resource) {
	if k := g.Kind(kind); k != nil {
		return k.Stored()
	}
	return nil, nil
}

// Hub returns the version whose Go type is a kind's hub (the group's internal version in the
// server) and the kind's resource there: the internal version when the group has one, else
// the version whose type has controller-runtime's Hub() method, else the storage version. A
// hub that is not the storage version (kueue v0.15's) converts on the way to and from etcd, as
// a CRD's conversion webhook does.
func (g *Group) Hub(kind string) (*Version, *Resource) {
	if g.Internal != nil {
		if r := g.Internal.Kind(kind); r != nil {
			return g.Internal, r
		}
		return nil, nil
	}
	if stored, _ := g.Stored(kind); stored == nil {
		return nil, nil
	}
	for _, v := range g.Versions {
		if r := v.Kind(kind); r != nil && r.Conversion == ConversionHub {
			return v, r
		}
	}
	return g.Stored(kind)
}

// Hubs returns every kind of the group once, as the resource of its hub, sorted by kind, each
// with its version.
func (g *Group) Hubs() []Hub {
	if g.Internal != nil {
		var out []Hub
		for _, r := range g.Internal.Resources {
			out = append(out, Hub{g.Internal, r})
		}
		slices.SortFunc(out, func(a, b Hub) int { return strings.Compare(a.Resource.Kind, b.Resource.Kind) })
		return out
	}
	out := g.StoredKinds()
	for i, h := range out {
		v, r := g.Hub(h.Resource.Kind)
		out[i] = Hub{v, r}
	}
	return out
}

// StoredKinds returns every kind of the group that has a storage version once, as the
// resource of its storage version, sorted by kind, each with its version.
func (g *Group) StoredKinds() []Hub {
	var out []Hub
	for _, k := range g.Kinds {
		if v, r := k.Stored(); v != nil {
			out = append(out, Hub{v, r})
		}
	}
	return out
}

// Hub is a kind in one version: its hub or its storage version.
type Hub struct {
	Version  *Version
	Resource *Resource
}

// ByPriority returns the group's versions in Kubernetes version priority, the most preferred
// first: GA before beta before alpha, higher numbers first (v2, v1, v1beta2, v1beta1,
// v1alpha1), then names that follow no convention, alphabetically. The scheme, discovery's
// preferred version and every APIService's versionPriority follow this one order.
func (g *Group) ByPriority() []*Version {
	vs := slices.Clone(g.Versions)
	slices.SortStableFunc(vs, func(a, b *Version) int {
		return cmp.Or(version.CompareKubeAwareVersionStrings(b.Name, a.Name), strings.Compare(a.Name, b.Name))
	})
	return vs
}

// Served returns the versions of the group that serve a resource, in ByPriority's order. A
// version without one (a package of shared types, or of webhook bodies such as k8s.io/api's
// admission/v1) is registered in the scheme but not served, and a group without any is not
// served at all.
func (g *Group) Served() []*Version {
	return slices.DeleteFunc(g.ByPriority(), func(v *Version) bool { return len(v.Resources) == 0 })
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
