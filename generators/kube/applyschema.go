package kube

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	apiextensionsopenapi "k8s.io/apiextensions-apiserver/pkg/generated/openapi"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/gengo/v2"
	"k8s.io/gengo/v2/types"
	oacommon "k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/handler"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/apigen-dev/apigen/internal/jsonview"
)

// applySchema builds, in memory, the OpenAPI v2 document applyconfiguration-gen reads with
// --openapi-schema: a definition for every struct type of the version packages and for every
// type they reach, named as the server names them. applyconfiguration-gen turns the part its
// kinds reach into the structured-merge-diff schema of the generated Extract functions, so
// what matters is what that schema keeps: properties and their types, list items, map values,
// references, and the x-kubernetes-list-type, -list-map-keys and -map-type extensions.
//
// Upstream feeds it a document dumped by a program compiled from openapi-gen's output (or the
// one a running server serves). Here the definitions of the version packages' types, and of
// any package the compiled-in definitions below do not cover, are built from the load with
// openapi-gen's own rules (properties from JSON names, inline members merged, pointers and
// aliases resolved, openapi-gen's simple type table, the extension tags it reads from comments).
// Types whose schema is code (metav1.Time, resource.Quantity, intstr.IntOrString, ...) come
// from the definitions that k8s.io/apiextensions-apiserver compiled from the same
// apimachinery sources with openapi-gen, and from the types' own methods.
func applySchema(u types.Universe, roots []string) (*spec.Swagger, error) {
	b := &schemaBuilder{universe: u, defs: spec.Definitions{}, compiled: compiledDefinitions()}
	for _, p := range roots {
		pkg := u[p]
		if pkg == nil {
			return nil, fmt.Errorf("package %s is not in the load", p)
		}
		for _, name := range slices.Sorted(maps.Keys(pkg.Types)) {
			if t := pkg.Types[name]; t.Kind == types.Struct && isExported(t.Name.Name) {
				b.enqueue(t)
			}
		}
	}
	for len(b.queue) > 0 {
		d := b.queue[0]
		b.queue = b.queue[1:]
		if err := b.define(d); err != nil {
			return nil, err
		}
	}
	return &spec.Swagger{SwaggerProps: spec.SwaggerProps{
		Swagger:     "2.0",
		Info:        &spec.Info{InfoProps: spec.InfoProps{Title: "apigen", Version: "unversioned"}},
		Paths:       &spec.Paths{},
		Definitions: b.defs,
	}}, nil
}

type schemaBuilder struct {
	universe types.Universe
	defs     spec.Definitions
	compiled map[string]oacommon.OpenAPIDefinition
	seen     map[string]bool
	queue    []pending
}

// pending is a definition to add: a compiled one by name, or one built from a type.
type pending struct {
	name string
	t    *types.Type
}

// definitionName is the name the server gives t's definition: the Go import path made
// REST-friendly (the version packages' +k8s:openapi-model-package says the same), which is
// also what the apimachinery types' OpenAPIModelName methods return.
func definitionName(t *types.Type) string {
	return restFriendlyName(t.Name.Package) + "." + t.Name.Name
}

func (b *schemaBuilder) enqueue(t *types.Type) { b.enqueueName(definitionName(t), t) }

func (b *schemaBuilder) enqueueName(name string, t *types.Type) {
	if b.seen == nil {
		b.seen = map[string]bool{}
	}
	if !b.seen[name] {
		b.seen[name] = true
		b.queue = append(b.queue, pending{name, t})
	}
}

func (b *schemaBuilder) ref(name string) spec.Ref {
	return spec.MustCreateRef("#/definitions/" + name)
}

// define adds a definition, and queues the definitions it refers to.
func (b *schemaBuilder) define(d pending) error {
	name, t := d.name, d.t
	if def, ok := b.compiled[name]; ok {
		b.defs[name] = def.Schema
		// A type with a v3 schema carries its v2 one in an extension, which the server's
		// v2 document serves (kube-openapi's builder).
		if v2, ok := def.Schema.Extensions[oacommon.ExtensionV2Schema].(spec.Schema); ok {
			b.defs[name] = v2
		}
		// The served v2 document carries no defaults, and neither does Kubernetes' own
		// swagger.json that client-go's apply configurations come from.
		s := b.defs[name]
		b.defs[name] = *handler.PruneDefaultsSchema(&s)
		for _, dep := range def.Dependencies {
			if _, ok := b.compiled[dep]; !ok {
				return fmt.Errorf("compiled definition %s refers to %s, which is not compiled in", name, dep)
			}
			b.enqueueName(dep, nil)
		}
		return nil
	}
	if t == nil {
		return fmt.Errorf("no definition of %s", name)
	}
	if s, ok := customSchema(t); ok {
		b.defs[name] = s
		return nil
	}
	if method(t, "OpenAPIDefinition") || method(t, "OpenAPIV3Definition") || method(t, "OpenAPISchemaType") {
		return fmt.Errorf("type %s defines its own OpenAPI schema, which apigen cannot evaluate to build the apply configurations' schema; "+
			"turn the clients off with +apigen:clients:enabled=false in pkg/apis/doc.go", t.Name)
	}
	s := spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}, Properties: map[string]spec.Schema{}}}
	if err := b.members(t, jsonview.View(t), &s); err != nil {
		return err
	}
	addExtensions(&s, t.CommentLines, "structType")
	b.defs[name] = s
	return nil
}

// members adds the properties of struct t to s as openapi-gen writes them: inline embedded
// members contribute their members; members named "-" in JSON are left out. define passes
// jsonview.View's t, without the members a shallower field of the same JSON name hides.
func (b *schemaBuilder) members(parent, t *types.Type, s *spec.Schema) error {
	for t.Kind == types.Pointer || t.Kind == types.Alias {
		t = resolve(t)
	}
	for _, m := range t.Members {
		tag, hasJSON := reflect.StructTag(m.Tags).Lookup("json")
		if m.Embedded && hasJSON && (tag == "" || strings.HasPrefix(tag, ",")) {
			if err := b.members(parent, m.Type, s); err != nil {
				return err
			}
			continue
		}
		opts := strings.Split(tag, ",")
		name := opts[0]
		if !hasJSON || tag == "" {
			name = m.Name
		}
		if name == "-" {
			continue
		}
		var p spec.Schema
		if len(opts) > 1 && opts[1] == "string" {
			p.Type = []string{"string"}
		} else if err := b.property(m.Type, &p); err != nil {
			return fmt.Errorf("%s.%s: %w", parent.Name, m.Name, err)
		}
		addExtensions(&p, m.CommentLines, "listType", "listMapKey", "mapType")
		s.Properties[name] = p
	}
	return nil
}

// property fills in the schema of a value of type t.
func (b *schemaBuilder) property(t *types.Type, s *spec.Schema) error {
	t = resolve(t)
	if typ, format := oacommon.OpenAPITypeFormat(t.String()); typ != "" {
		s.Type, s.Format = []string{typ}, format
		return nil
	}
	switch t.Kind {
	case types.Map:
		if k := resolve(t.Key); k.Name.Name != "string" {
			return fmt.Errorf("map keys of type %s: OpenAPI maps have string keys", k)
		}
		elem := &spec.Schema{}
		if err := b.property(t.Elem, elem); err != nil {
			return err
		}
		s.Type = []string{"object"}
		s.AdditionalProperties = &spec.SchemaOrBool{Allows: true, Schema: elem}
	case types.Slice, types.Array:
		elem := &spec.Schema{}
		if err := b.property(t.Elem, elem); err != nil {
			return err
		}
		s.Type = []string{"array"}
		s.Items = &spec.SchemaOrArray{Schema: elem}
	case types.Struct:
		if t.Name.Package == "" {
			return fmt.Errorf("an anonymous struct has no OpenAPI definition")
		}
		s.Ref = b.ref(definitionName(t))
		b.enqueue(t)
	case types.Interface:
		// openapi-gen describes no interface either.
	default:
		return fmt.Errorf("no OpenAPI schema for type %s", t)
	}
	return nil
}

// extensionNames are the comment tags openapi-gen turns into the x-kubernetes- extensions that
// the structured-merge-diff schema keeps.
var extensionNames = map[string]string{
	"listType":   "x-kubernetes-list-type",
	"listMapKey": "x-kubernetes-list-map-keys",
	"mapType":    "x-kubernetes-map-type",
	"structType": "x-kubernetes-map-type",
}

// addExtensions adds the extensions of the named tags found in comments.
func addExtensions(s *spec.Schema, comments []string, tags ...string) {
	found := gengo.ExtractCommentTags("+", comments)
	for _, tag := range tags {
		values := found[tag]
		if len(values) == 0 {
			continue
		}
		if tag == "listMapKey" {
			s.AddExtension(extensionNames[tag], slices.Clone(values))
		} else {
			s.AddExtension(extensionNames[tag], values[0])
		}
	}
}

// compiledDefinitions are openapi-gen's definitions of the apimachinery types (meta/v1,
// runtime, version, resource) as k8s.io/apiextensions-apiserver compiled them, keyed by
// definition name.
func compiledDefinitions() map[string]oacommon.OpenAPIDefinition {
	ref := func(name string) spec.Ref { return spec.MustCreateRef("#/definitions/" + name) }
	return apiextensionsopenapi.GetOpenAPIDefinitions(ref)
}

// customSchema is the schema of an apimachinery type whose schema is its methods' results and
// that the compiled definitions leave out.
func customSchema(t *types.Type) (spec.Schema, bool) {
	switch t.Name.String() {
	case "k8s.io/apimachinery/pkg/util/intstr.IntOrString":
		v := intstr.IntOrString{}
		return spec.Schema{SchemaProps: spec.SchemaProps{Type: v.OpenAPISchemaType(), Format: v.OpenAPISchemaFormat()}}, true
	}
	return spec.Schema{}, false
}

func isExported(name string) bool { return name != "" && strings.ToUpper(name[:1]) == name[:1] }
