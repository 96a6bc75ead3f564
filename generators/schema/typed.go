package schema

import (
	"encoding/json"
	"go/types"
	"reflect"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/apigen-dev/apigen/generators/model"
)

// markSatisfiedByType sets Resource.SchemaSatisfiedByType on each kind's version whose
// enforced schema no object of its Go type can break, so the server skips the schema walk
// there. It must run on the enforced schemas, before the syntax is released.
func markSatisfiedByType(p *model.Project, byPath map[string]*types.Package) error {
	for _, g := range p.Groups {
		for _, v := range g.Versions {
			pkg := byPath[v.Package]
			if pkg == nil {
				continue
			}
			for _, r := range v.Resources {
				r.SchemaSatisfiedByType, r.SchemaSatisfiedOutsideStatus = false, false
				obj := pkg.Scope().Lookup(r.Kind)
				if len(r.Schema) == 0 || obj == nil {
					continue
				}
				var s apiextensionsv1.JSONSchemaProps
				if err := json.Unmarshal(r.Schema, &s); err != nil {
					return err
				}
				r.SchemaSatisfiedByType = satisfiedByType(s, obj.Type())
				// Only the hub's own version is sure to see a create's cleared status as zero: a
				// conversion function written by hand may fill in a status from nothing.
				hub, _ := g.Hub(r.Kind)
				r.SchemaSatisfiedOutsideStatus = !r.SchemaSatisfiedByType && r.Subresources.Status && hub == v && satisfiedOutsideStatus(s, obj.Type())
			}
		}
	}
	return nil
}

// satisfiedByType reports whether every object of the kind's Go type t satisfies the kind's
// schema s as the server checks it: converted to JSON, nulls of non-nullable fields without a
// default dropped, an empty status dropped. Only what the Go type guarantees passes (types,
// the formats and patterns of its known types, structure, requiredness of fields that are
// always written); any other constraint (bounds, patterns, enums and formats of markers, CEL,
// list sets and maps, embedded resources, preserved fields) means the schema must be checked.
func satisfiedByType(s apiextensionsv1.JSONSchemaProps, t types.Type) bool {
	// The server drops a status left empty, so its requiredness is not guaranteed.
	return !slices.Contains(s.Required, "status") && satisfies(s, t)
}

// satisfiedOutsideStatus reports whether every object of the kind's Go type t satisfies s
// when its status is either its zero value, written as no status (a create, whose status the
// status subresource's strategy clears), or the stored one (a main resource update, which
// keeps it: ratcheting passes an unchanged status whatever it holds).
func satisfiedOutsideStatus(s apiextensionsv1.JSONSchemaProps, t types.Type) bool {
	status, ok := s.Properties["status"]
	st, isStruct := deref(t).Underlying().(*types.Struct)
	if !ok || !isStruct || status.Nullable || status.Default != nil {
		return false
	}
	if f, ok := jsonField(st, "status"); !ok || f.viaPointer || !zeroWritesNothing(f.typ, f.omitEmpty) {
		return false
	}
	rest := s
	rest.Properties = map[string]apiextensionsv1.JSONSchemaProps{}
	for name, p := range s.Properties {
		if name != "status" {
			rest.Properties[name] = p
		}
	}
	return satisfiedByType(rest, t)
}

// zeroWritesNothing reports whether the zero value of a field of type t is absent from the
// object the server checks: omitted, a null it drops, or an object of no fields, as an empty
// status is dropped.
func zeroWritesNothing(t types.Type, omitEmpty bool) bool {
	if customJSON(t) {
		return false
	}
	switch u := types.Unalias(t).Underlying().(type) {
	case *types.Pointer, *types.Slice, *types.Map:
		return true // omitted, or null and dropped
	case *types.Basic:
		return omitEmpty
	case *types.Struct:
		for i := range u.NumFields() {
			v := u.Field(i)
			tagName, opts, _ := strings.Cut(reflect.StructTag(u.Tag(i)).Get("json"), ",")
			if tagName == "-" && opts == "" || !v.Embedded() && !v.Exported() {
				continue
			}
			omit := slices.ContainsFunc(strings.Split(opts, ","), func(o string) bool { return o == "omitempty" })
			if v.Embedded() && tagName == "" {
				if _, ok := v.Type().Underlying().(*types.Struct); ok {
					if !zeroWritesNothing(v.Type(), false) {
						return false
					}
					continue
				}
			}
			switch v.Type().Underlying().(type) {
			case *types.Pointer, *types.Slice, *types.Map, *types.Basic:
				if !omit || customJSON(v.Type()) {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	return false
}

// knownTypes are the schemas controller-tools gives the Kubernetes types it knows (see its
// crd.KnownPackages) that every value of the type satisfies; descriptions, defaults and
// nullable aside.
var knownTypes = map[string]apiextensionsv1.JSONSchemaProps{
	"k8s.io/apimachinery/pkg/apis/meta/v1.Time":       {Type: "string", Format: "date-time"},
	"k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime":  {Type: "string", Format: "date-time"},
	"k8s.io/apimachinery/pkg/apis/meta/v1.Duration":   {Type: "string"},
	"k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta": embeddedObjectMeta,
	"k8s.io/apimachinery/pkg/util/intstr.IntOrString": {XIntOrString: true, AnyOf: []apiextensionsv1.JSONSchemaProps{{Type: "integer"}, {Type: "string"}}},
	// A Quantity is always written in its canonical form, which the pattern accepts.
	"k8s.io/apimachinery/pkg/api/resource.Quantity": {
		XIntOrString: true,
		AnyOf:        []apiextensionsv1.JSONSchemaProps{{Type: "integer"}, {Type: "string"}},
		Pattern:      `^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`,
	},
}

const objectMeta = "k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta"

// embeddedObjectMeta is controller-tools' schema of an ObjectMeta below the top level, with
// crd:generateEmbeddedObjectMeta=true (crd.ObjectMetaPackages), as newParser asks for it, read
// back from JSON as the model holds it: every ObjectMeta satisfies it. The top-level metadata is a bare object (forServing), which every
// ObjectMeta satisfies too.
var embeddedObjectMeta = apiextensionsv1.JSONSchemaProps{
	Type: "object",
	Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"name":        {Type: "string"},
		"namespace":   {Type: "string"},
		"annotations": {Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}},
		"labels":      {Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}},
		"finalizers":  {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}},
	},
}

// alwaysWritten are the known types whose JSON is never null (a zero metav1.Time is).
var alwaysWritten = map[string]bool{
	"k8s.io/apimachinery/pkg/apis/meta/v1.Duration":   true,
	"k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta": true, // a struct, an object even when empty
	"k8s.io/apimachinery/pkg/util/intstr.IntOrString": true,
	"k8s.io/apimachinery/pkg/api/resource.Quantity":   true,
}

func typeName(t types.Type) string {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return ""
	}
	return n.Obj().Pkg().Path() + "." + n.Obj().Name()
}

// satisfies is satisfiedByType for any part of an object.
func satisfies(s apiextensionsv1.JSONSchemaProps, t types.Type) bool {
	t = deref(t)
	if known, ok := knownTypes[typeName(t)]; ok {
		s.Description, s.Default, s.Nullable = "", nil, false
		if typeName(t) == objectMeta && reflect.DeepEqual(s, apiextensionsv1.JSONSchemaProps{Type: "object"}) {
			return true // the top-level metadata
		}
		return reflect.DeepEqual(s, known)
	}
	// Its own JSON form is whatever its methods write.
	if customJSON(t) {
		return false
	}
	if !onlyStructure(s) {
		return false
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		typ, format, ok := basicSchema(u)
		return ok && s.Type == typ && s.Format == format && s.Properties == nil && s.Items == nil && s.AdditionalProperties == nil
	case *types.Slice:
		if b, ok := u.Elem().Underlying().(*types.Basic); ok && b.Kind() == types.Byte {
			return s.Type == "string" && s.Format == "byte" && s.Items == nil
		}
		if s.Type != "array" || s.Format != "" || s.Properties != nil || s.AdditionalProperties != nil {
			return false
		}
		return s.Items == nil || s.Items.Schema != nil && len(s.Items.JSONSchemas) == 0 && element(*s.Items.Schema, u.Elem())
	case *types.Map:
		if k, ok := u.Key().Underlying().(*types.Basic); !ok || k.Kind() != types.String {
			return false
		}
		if s.Type != "object" || s.Format != "" || s.Properties != nil || s.Items != nil {
			return false
		}
		a := s.AdditionalProperties
		return a == nil || a.Schema == nil && a.Allows || a.Schema != nil && element(*a.Schema, u.Elem())
	case *types.Struct:
		if s.Type != "object" || s.Format != "" || s.Items != nil || s.AdditionalProperties != nil {
			return false
		}
		for name, prop := range s.Properties {
			f, ok := jsonField(u, name)
			if !ok || !property(prop, f) {
				return false
			}
		}
		for _, name := range s.Required {
			if f, ok := jsonField(u, name); !ok || !f.alwaysWritten() {
				return false
			}
		}
		return true
	}
	return false
}

// onlyStructure reports whether s has nothing but what a Go type guarantees or what validation
// does not read (type, format, structure, requiredness: their parts are checked apart).
func onlyStructure(s apiextensionsv1.JSONSchemaProps) bool {
	if s.XListType != nil && *s.XListType != "atomic" {
		return false
	}
	s.Description, s.Title, s.Example, s.ExternalDocs, s.Default, s.Nullable = "", "", nil, nil, nil, false
	s.Type, s.Format, s.Properties, s.Items, s.AdditionalProperties, s.Required = "", "", nil, nil, nil, nil
	s.XListType, s.XMapType = nil, nil
	return reflect.DeepEqual(s, apiextensionsv1.JSONSchemaProps{})
}

// element checks the items of a list or the values of a map: a nil element is a null, which
// only a nullable schema accepts.
func element(s apiextensionsv1.JSONSchemaProps, t types.Type) bool {
	return (s.Nullable || !nilable(t)) && satisfies(s, t)
}

// property checks a struct field. A nil field without omitempty is a null, which the server
// drops unless the schema is nullable (valid then) or has a default (then it stays, invalid).
func property(s apiextensionsv1.JSONSchemaProps, f goField) bool {
	if nilable(f.typ) && !f.omitEmpty && !s.Nullable && s.Default != nil {
		return false
	}
	return satisfies(s, f.typ)
}

// basicSchema is the type and format controller-tools gives a basic Go type (its
// builtinToType), false for those a value can break: unsigned integers past the signed range
// of their format.
func basicSchema(b *types.Basic) (typ, format string, ok bool) {
	switch info := b.Info(); {
	case info&types.IsBoolean != 0:
		return "boolean", "", true
	case info&types.IsString != 0:
		return "string", "", true
	case info&types.IsUnsigned != 0:
		return "", "", false
	case info&types.IsInteger != 0:
		switch b.Kind() {
		case types.Int32:
			return "integer", "int32", true
		case types.Int64:
			return "integer", "int64", true
		}
		return "integer", "", true
	case info&types.IsFloat != 0:
		return "number", "", true
	}
	return "", "", false
}

func deref(t types.Type) types.Type {
	for {
		p, ok := types.Unalias(t).Underlying().(*types.Pointer)
		if !ok {
			return types.Unalias(t)
		}
		t = p.Elem()
	}
}

func nilable(t types.Type) bool {
	switch t.Underlying().(type) {
	case *types.Pointer, *types.Slice, *types.Map, *types.Interface:
		return true
	}
	return false
}

// customJSON reports whether the type (or its pointer) writes its own JSON or unstructured form.
func customJSON(t types.Type) bool {
	for _, m := range []string{"MarshalJSON", "MarshalText", "ToUnstructured"} {
		if obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(t), true, nil, m); obj != nil {
			if _, ok := obj.(*types.Func); ok {
				return true
			}
		}
	}
	return false
}

// A goField is the struct field a JSON property comes from.
type goField struct {
	typ       types.Type
	omitEmpty bool
	// viaPointer says the field is inlined from an embedded pointer, absent when it is nil.
	viaPointer bool
}

// alwaysWritten reports whether the field is in every object's JSON, as a required property
// must be: written whatever its value, and never null.
func (f goField) alwaysWritten() bool {
	if f.omitEmpty || f.viaPointer || nilable(f.typ) {
		return false
	}
	if name := typeName(f.typ); name != "" {
		if _, known := knownTypes[name]; known {
			return alwaysWritten[name]
		}
	}
	if customJSON(f.typ) {
		return false
	}
	switch f.typ.Underlying().(type) {
	case *types.Basic, *types.Struct:
		return true
	}
	return false
}

// jsonField finds the field of st that writes the JSON property name, looking into inlined
// embedded structs as encoding/json does.
func jsonField(st *types.Struct, name string) (goField, bool) {
	for i := range st.NumFields() {
		v := st.Field(i)
		tagName, opts, _ := strings.Cut(reflect.StructTag(st.Tag(i)).Get("json"), ",")
		if tagName == "-" && opts == "" {
			continue
		}
		if v.Embedded() && tagName == "" {
			inner, viaPointer := v.Type(), false
			if p, ok := inner.Underlying().(*types.Pointer); ok {
				inner, viaPointer = p.Elem(), true
			}
			if in, ok := inner.Underlying().(*types.Struct); ok && !customJSON(inner) {
				if f, ok := jsonField(in, name); ok {
					f.viaPointer = f.viaPointer || viaPointer
					return f, true
				}
				continue
			}
		}
		if !v.Exported() {
			continue
		}
		if tagName == "" {
			tagName = v.Name()
		}
		if tagName == name {
			omit := slices.ContainsFunc(strings.Split(opts, ","), func(o string) bool { return o == "omitempty" || o == "omitzero" })
			return goField{typ: v.Type(), omitEmpty: omit}, true
		}
	}
	return goField{}, false
}
