package schema

import (
	"maps"
	"reflect"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/controller-tools/pkg/crd"
	ctloader "sigs.k8s.io/controller-tools/pkg/loader"

	"github.com/apigen-dev/apigen/generators/model"
)

// A type that contains itself (k8s.io/api's scheduling Workload nests CompositePodGroupTemplate
// in itself) has no schema a CRD can carry: controller-tools cuts the recursion with an empty
// schema, which kube-apiserver refuses in a CRD. kube-apiserver serves such built-in types, and
// so does this server: the empty schema becomes an object that keeps any field, the Go type
// still decodes what is there and its +k8s: rules still run, and apigen warns at the field
// that its schema markers below go unchecked. (+kubebuilder:validation:Schemaless alone also
// leaves a field's schema empty, and is treated alike.)

// openSchemaWarnings warns at each field of a served kind whose schema openEmptySchemas opens.
func openSchemaWarnings(root string, p *model.Project, parser *crd.Parser, byPath map[string]*ctloader.Package) model.ErrorList {
	var warnings model.ErrorList
	for r := range p.Served() {
		ident := crd.TypeIdent{Package: byPath[r.Version.Package], Name: r.Kind}
		s, ok := parser.FlattenedSchemata[ident]
		if !ok || len(r.Schema) == 0 {
			continue
		}
		for _, path := range emptySchemas(&s) {
			warnings.Add(relative(root, locate(parser, ident, path)),
				"warning: %s %s: %s: the schema here is empty, as where a type contains itself, which a CRD's schema cannot express; the server accepts any object here, which the Go type decodes and its +k8s: rules check, but schema markers below it are not enforced",
				r.Kind, r.Version.Name, jsonPath(path))
		}
	}
	return warnings
}

// emptySchemas returns the schema paths (properties[spec].items...) of the empty schemas in s.
func emptySchemas(s *apiextensionsv1.JSONSchemaProps) []string {
	var out []string
	eachEmptySchema(s, func(_ *apiextensionsv1.JSONSchemaProps, path string, _ []string, _ []*apiextensionsv1.JSONSchemaProps) {
		out = append(out, path)
	})
	return out
}

// openEmptySchemas gives each empty schema in s the schema of an object that keeps any field.
// The items of a map-list keep its keys' schemas (and requiredness), taken from the nearest
// enclosing object that has them, the type that contains itself in the usual case, since a
// list's keys must be properties of its items.
func openEmptySchemas(s *apiextensionsv1.JSONSchemaProps) {
	eachEmptySchema(s, func(sub *apiextensionsv1.JSONSchemaProps, _ string, keys []string, enclosing []*apiextensionsv1.JSONSchemaProps) {
		keep := true
		*sub = apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &keep}
		if len(keys) == 0 {
			return
		}
		for _, outer := range slices.Backward(enclosing) {
			if slices.ContainsFunc(keys, func(k string) bool { _, ok := outer.Properties[k]; return !ok }) {
				continue
			}
			sub.Properties = map[string]apiextensionsv1.JSONSchemaProps{}
			for _, k := range keys {
				sub.Properties[k] = outer.Properties[k]
				if slices.Contains(outer.Required, k) {
					sub.Required = append(sub.Required, k)
				}
			}
			return
		}
	})
}

// isEmptySchema reports whether s constrains nothing (its description aside).
func isEmptySchema(s *apiextensionsv1.JSONSchemaProps) bool {
	bare := *s
	bare.Description = ""
	return reflect.DeepEqual(bare, apiextensionsv1.JSONSchemaProps{})
}

// eachEmptySchema calls f on every empty property, item and additional-properties schema
// below s, depth first, properties in name order, with its path from s, the map keys of the
// list it is an item of (nil otherwise), and the schemas that enclose it, s first. f may
// replace the schema it is given.
func eachEmptySchema(s *apiextensionsv1.JSONSchemaProps, f func(sub *apiextensionsv1.JSONSchemaProps, path string, keys []string, enclosing []*apiextensionsv1.JSONSchemaProps)) {
	var walk func(s *apiextensionsv1.JSONSchemaProps, path string, enclosing []*apiextensionsv1.JSONSchemaProps)
	step := func(sub *apiextensionsv1.JSONSchemaProps, path string, keys []string, enclosing []*apiextensionsv1.JSONSchemaProps) {
		if isEmptySchema(sub) {
			f(sub, path, keys, enclosing)
			return
		}
		walk(sub, path, append(enclosing, sub))
	}
	walk = func(s *apiextensionsv1.JSONSchemaProps, path string, enclosing []*apiextensionsv1.JSONSchemaProps) {
		for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
			sub := s.Properties[name]
			step(&sub, join(path, "properties["+name+"]"), nil, enclosing)
			s.Properties[name] = sub
		}
		if s.Items != nil && s.Items.Schema != nil {
			step(s.Items.Schema, join(path, "items"), s.XListMapKeys, enclosing)
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
			step(s.AdditionalProperties.Schema, join(path, "additionalProperties"), nil, enclosing)
		}
	}
	walk(s, "", []*apiextensionsv1.JSONSchemaProps{s})
}

func join(path, step string) string {
	if path == "" {
		return step
	}
	return path + "." + step
}
