package server

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	openapicommon "k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// Schemas are the schemas the server validates each served kind against, in
// each version, as JSON (the registry packages' Schemas).
type Schemas map[schema.GroupVersionKind]string

// constrain returns the OpenAPI definitions with the constraints of the
// kinds' schemas added (minimum, pattern, enum, required, CEL rules as
// x-kubernetes-validations, ...), so that kubectl explain and clients see
// what the server enforces. openapi-gen reads the Go types but not
// kubebuilder's validation markers; the schemas come from those markers.
// The definitions of the project's own packages take every constraint: the
// kinds' packages and the project's other packages whose types the kinds use
// (packages, such as a pkg/apis/shared, whose types openapi-gen names by
// import path). Another module's shared types (crossplane's common/v2) take
// the constraints of their fields, which their own markers wrote, but not
// those on the type as a whole: a constraint written on a field of the
// project whose type is another module's belongs to that use, not to the type
// everywhere. Kubernetes' own types (metav1, intstr, core/v1) stay as
// kube-apiserver publishes them.
func (s Schemas) constrain(scheme *runtime.Scheme, packages []string, get openapicommon.GetOpenAPIDefinitions) openapicommon.GetOpenAPIDefinitions {
	if len(s) == 0 {
		return get
	}
	// The schemas are read once; each call of the definitions (OpenAPI v2, and v3 for each
	// group version) merges them into fresh definitions, reading them only.
	own := map[string]bool{}
	for _, p := range packages {
		own[p] = true
	}
	roots := map[string]*apiextensionsv1.JSONSchemaProps{}
	for gvk, raw := range s {
		obj, err := scheme.New(gvk)
		if err != nil {
			continue
		}
		name := modelName(obj)
		var props apiextensionsv1.JSONSchemaProps
		if json.Unmarshal([]byte(raw), &props) != nil {
			continue
		}
		roots[name] = &props
		if i := strings.LastIndex(name, "."); i > 0 {
			own[name[:i]] = true
		}
	}
	return func(ref openapicommon.ReferenceCallback) map[string]openapicommon.OpenAPIDefinition {
		defs := get(ref)
		m := merger{defs: defs, own: own}
		for name, props := range roots {
			m.definition(name, props)
		}
		return defs
	}
}

// modelName is the name of a type's OpenAPI definition, as openapi-gen names it.
func modelName(obj runtime.Object) string {
	if n, ok := obj.(interface{ OpenAPIModelName() string }); ok {
		return n.OpenAPIModelName()
	}
	t := reflect.TypeOf(obj).Elem()
	return t.PkgPath() + "." + t.Name()
}

type merger struct {
	defs map[string]openapicommon.OpenAPIDefinition
	// own are the name prefixes (packages) of the project's definitions.
	own map[string]bool
}

// definition adds props's constraints to the named definition and, through
// its properties, to the definitions they refer to.
func (m merger) definition(name string, props *apiextensionsv1.JSONSchemaProps) {
	def, ok := m.defs[name]
	i := strings.LastIndex(name, ".")
	if !ok || i < 0 {
		return
	}
	switch pkg := name[:i]; {
	case m.own[pkg]:
		m.schema(&def.Schema, props)
	case kubernetesDefinition(pkg):
		return
	default:
		m.members(&def.Schema, props)
	}
	m.defs[name] = def
}

// kubernetesDefinition tells the definitions of Kubernetes' own types apart, named by
// their model names (io.k8s.api.core.v1) or by import path (k8s.io/...).
func kubernetesDefinition(pkg string) bool {
	return strings.HasPrefix(pkg, "io.k8s.") || strings.HasPrefix(pkg, "k8s.io/")
}

// schema adds props's constraints to s, and to its properties, items and
// additional properties, following references to other definitions.
func (m merger) schema(s *spec.Schema, props *apiextensionsv1.JSONSchemaProps) {
	if name := refName(s); name != "" {
		m.definition(name, props)
		return
	}
	constrain(s, props)
	m.members(s, props)
}

// members adds props's constraints to the properties, items and additional properties of s.
func (m merger) members(s *spec.Schema, props *apiextensionsv1.JSONSchemaProps) {
	for pname, p := range props.Properties {
		ps, ok := s.Properties[pname]
		if !ok {
			continue
		}
		m.schema(&ps, &p)
		s.Properties[pname] = ps
	}
	if props.Items != nil && props.Items.Schema != nil && s.Items != nil && s.Items.Schema != nil {
		m.schema(s.Items.Schema, props.Items.Schema)
	}
	if props.AdditionalProperties != nil && props.AdditionalProperties.Schema != nil && s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		m.schema(s.AdditionalProperties.Schema, props.AdditionalProperties.Schema)
	}
}

// inOrderOf returns the names of want, those that order has in its order (openapi-gen's, the
// fields' order, as kube-apiserver publishes them) and then the others in want's (controller-gen
// sorts them).
func inOrderOf(order, want []string) []string {
	out := make([]string, 0, len(want))
	for _, name := range order {
		if slices.Contains(want, name) {
			out = append(out, name)
		}
	}
	for _, name := range want {
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// refName is the definition a schema refers to, directly or as openapi-gen
// writes a reference with a default (allOf of one reference).
func refName(s *spec.Schema) string {
	ref := s.Ref.String()
	if ref == "" && len(s.AllOf) == 1 {
		ref = s.AllOf[0].Ref.String()
	}
	if ref == "" {
		return ""
	}
	name := ref[strings.LastIndex(ref, "/")+1:]
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(name)
}

// constrain copies the validation keywords and Kubernetes extensions of props
// onto s.
func constrain(s *spec.Schema, p *apiextensionsv1.JSONSchemaProps) {
	s.Maximum, s.ExclusiveMaximum = or(p.Maximum, s.Maximum), s.ExclusiveMaximum || p.ExclusiveMaximum
	s.Minimum, s.ExclusiveMinimum = or(p.Minimum, s.Minimum), s.ExclusiveMinimum || p.ExclusiveMinimum
	s.MaxLength, s.MinLength = or(p.MaxLength, s.MaxLength), or(p.MinLength, s.MinLength)
	s.MaxItems, s.MinItems = or(p.MaxItems, s.MaxItems), or(p.MinItems, s.MinItems)
	s.MaxProperties, s.MinProperties = or(p.MaxProperties, s.MaxProperties), or(p.MinProperties, s.MinProperties)
	s.MultipleOf = or(p.MultipleOf, s.MultipleOf)
	s.UniqueItems = s.UniqueItems || p.UniqueItems
	s.Nullable = s.Nullable || p.Nullable
	if p.Pattern != "" {
		s.Pattern = p.Pattern
	}
	if s.Format == "" {
		s.Format = p.Format
	}
	// The required fields are the schema's, as controller-gen decides them for
	// a CRD (+kubebuilder:validation:Optional beside +required is optional),
	// even none: openapi-gen reads only +required, +optional and omitempty.
	if len(p.Properties) > 0 || len(p.Required) > 0 {
		s.Required = inOrderOf(s.Required, p.Required)
	}
	if len(p.Enum) > 0 {
		s.Enum = nil
		for _, e := range p.Enum {
			var v any
			if json.Unmarshal(e.Raw, &v) == nil {
				s.Enum = append(s.Enum, v)
			}
		}
	}
	extend := func(key string, value any, set bool) {
		if !set {
			return
		}
		b, err := json.Marshal(value)
		var v any
		if err == nil && json.Unmarshal(b, &v) == nil {
			s.AddExtension(key, v)
		}
	}
	extend("x-kubernetes-validations", p.XValidations, len(p.XValidations) > 0)
	extend("x-kubernetes-int-or-string", true, p.XIntOrString)
	extend("x-kubernetes-embedded-resource", true, p.XEmbeddedResource)
	extend("x-kubernetes-preserve-unknown-fields", p.XPreserveUnknownFields, p.XPreserveUnknownFields != nil)
	extend("x-kubernetes-list-type", p.XListType, p.XListType != nil)
	extend("x-kubernetes-list-map-keys", p.XListMapKeys, len(p.XListMapKeys) > 0)
	extend("x-kubernetes-map-type", p.XMapType, p.XMapType != nil)
}

// or is a when set, else b.
func or[T any](a, b *T) *T {
	if a != nil {
		return a
	}
	return b
}
