package schema

import (
	"context"
	"encoding/json"
	"fmt"
	"go/token"
	"go/types"
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-tools/pkg/crd"
	ctloader "sigs.k8s.io/controller-tools/pkg/loader"
	ctmarkers "sigs.k8s.io/controller-tools/pkg/markers"

	"github.com/apigen-dev/apigen/generators/model"
)

// check validates each kind's schemas as kube-apiserver validates a CustomResourceDefinition
// that carries them: the schema must be structural, defaults must be valid and CEL rules must
// compile within the cost limits. Each problem is reported at the Go field or type the
// offending part of the schema comes from. Rules only a CRD must follow (crdOnly) are
// warnings: the server serves these types as kube-apiserver serves its built-in types.
func check(root string, p *model.Project, parser *crd.Parser, byPath map[string]*ctloader.Package) (warnings model.ErrorList, _ error) {
	var errs model.ErrorList
	for _, g := range p.Groups {
		kinds := map[string][]*model.Version{}
		var order []string
		for _, v := range g.ByPriority() {
			for _, r := range v.Resources {
				if len(r.Schema) == 0 {
					continue
				}
				if kinds[r.Kind] == nil {
					order = append(order, r.Kind)
				}
				kinds[r.Kind] = append(kinds[r.Kind], v)
			}
		}
		for _, kind := range order {
			def, err := definition(g, kind, kinds[kind])
			if err != nil {
				return nil, err
			}
			for _, e := range crdvalidation.ValidateCustomResourceDefinition(context.Background(), def) {
				v, path, ok := schemaPath(e.Field, kinds[kind])
				if !ok {
					continue // names, scope and other parts of the CRD that apigen made up itself
				}
				kindType := crd.TypeIdent{Package: byPath[v.Package], Name: kind}
				pos := relative(root, locate(parser, kindType, path))
				if why := crdOnly(e); why != "" {
					warnings.Add(pos, "warning: %s %s: %s (%s)", kind, v.Name, describe(e, path), why)
					continue
				}
				errs.Add(pos, "%s %s: %s", kind, v.Name, describe(e, path))
			}
		}
	}
	return warnings, errs.Err()
}

// crdOnlyRules are rules of a CRD's schema that keep a CustomResourceDefinition consistent
// for kube-apiserver's handling of it, not rules the types must follow to be served: k8s.io/api's
// own types break them. Each maps part of the rule's message to why it does not apply here.
var crdOnlyRules = map[string]string{
	"x-kubernetes-list-map-keys, so it must have a default or be a required property": "a rule for CRDs only: kube-apiserver serves built-in types that break it, and so does this server",
}

// crdOnly says why a CRD validation error is about a rule for CRDs only, or "" when the rule
// applies to the served types too.
func crdOnly(e *field.Error) string {
	for part, why := range crdOnlyRules {
		if strings.Contains(e.Error(), part) {
			return why
		}
	}
	return ""
}

// definition is the CustomResourceDefinition the kind would be: one served version per
// version that declares it, stored in its storage version.
func definition(g *model.Group, kind string, versions []*model.Version) (*apiextensions.CustomResourceDefinition, error) {
	k := g.Kind(kind)
	v1 := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: k.Plural + "." + g.Name},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: g.Name,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: k.Plural, Singular: k.Singular, Kind: kind, ListKind: k.ListKind,
			},
			Scope: apiextensionsv1.ResourceScope(k.Scope),
		},
	}
	storage := k.Storage
	stored := false
	for _, v := range versions {
		r := v.Kind(kind)
		var s apiextensionsv1.JSONSchemaProps
		if err := json.Unmarshal(r.Schema, &s); err != nil {
			return nil, err
		}
		stored = stored || v == storage
		v1.Spec.Versions = append(v1.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{
			Name: v.Name, Served: true, Storage: v == storage,
			Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &s},
		})
	}
	if !stored {
		// A kind stored in a version of its own internal types: any served version will do for
		// the check, which only needs one.
		v1.Spec.Versions[0].Storage = true
	}
	v1.Status.StoredVersions = []string{g.Name}
	var internal apiextensions.CustomResourceDefinition
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(v1, &internal, nil); err != nil {
		return nil, err
	}
	internal.Status.StoredVersions = nil
	return &internal, nil
}

var versionIndex = regexp.MustCompile(`^spec\.versions\[(\d+)\]\.schema\.openAPIV3Schema\.?`)

// sharedSchema is where the internal CRD holds a schema that every version shares (always so
// with one version): the conversion from v1 moves it up to spec.validation.
const sharedSchema = "spec.validation.openAPIV3Schema"

// schemaPath splits a CRD validation error's field path into the version it is about and the
// path inside that version's schema ("properties[spec].properties[replicas].maximum"). A
// schema all versions share is reported at the first.
func schemaPath(field string, versions []*model.Version) (*model.Version, string, bool) {
	if rest, ok := strings.CutPrefix(field, sharedSchema); ok {
		return versions[0], strings.TrimPrefix(rest, "."), true
	}
	m := versionIndex.FindStringSubmatch(field)
	if m == nil {
		return nil, "", false
	}
	i, _ := strconv.Atoi(m[1])
	if i >= len(versions) {
		return nil, "", false
	}
	return versions[i], strings.TrimPrefix(field, m[0]), true
}

// describe is the error without the CRD's own path: the schema path (in JSON field names) and
// what is wrong there. A CEL rule's error names the rule, not the whole validation rule struct.
func describe(e *field.Error, path string) string {
	body := e.ErrorBody()
	if rule, ok := e.BadValue.(apiextensions.ValidationRule); ok {
		body = fmt.Sprintf("rule %q: %s", rule.Rule, e.Detail)
	}
	if where := jsonPath(path); where != "" {
		return where + ": " + body
	}
	return body
}

var propertyStep = regexp.MustCompile(`properties\[([^\]]+)\]`)

// jsonPath turns a schema path into the path of the object's field it constrains
// ("properties[spec].properties[replicas].maximum" into "spec.replicas (maximum)").
func jsonPath(path string) string {
	var fields []string
	var rest []string
	for _, step := range model.SplitPath(path) {
		if m := propertyStep.FindStringSubmatch(step); m != nil {
			fields = append(fields, m[1])
			continue
		}
		switch step {
		case "":
		case "items":
			fields = append(fields, "[*]")
		case "additionalProperties":
			fields = append(fields, "{*}")
		default:
			rest = append(rest, step)
		}
	}
	out := strings.ReplaceAll(strings.Join(fields, "."), ".[*]", "[*]")
	if len(rest) > 0 {
		out = strings.TrimSpace(out + " (" + strings.Join(rest, ".") + ")")
	}
	return out
}

// locate follows a schema path through the Go types, from the kind's type through each
// field (by its JSON name, into embedded structs) and element type, and returns the position
// of the last field or type it reached: where the markers that made that part of the schema are.
func locate(parser *crd.Parser, root crd.TypeIdent, path string) token.Position {
	info := parser.Types[root]
	if info == nil || root.Package == nil {
		return token.Position{}
	}
	pkg := root.Package
	pos := pkg.Fset.Position(info.RawSpec.Pos())
	for _, step := range model.SplitPath(path) {
		m := propertyStep.FindStringSubmatch(step)
		if m == nil {
			if step == "items" || step == "additionalProperties" {
				continue // the element type is already where the field's type led
			}
			break
		}
		f, fpkg := fieldNamed(parser, pkg, info, m[1])
		if f == nil {
			break
		}
		pos = fpkg.Fset.Position(f.RawField.Pos())
		next, npkg := namedType(parser, fpkg, fpkg.TypesInfo.TypeOf(f.RawField.Type))
		if next == nil {
			break
		}
		info, pkg = next, npkg
	}
	return pos
}

// fieldNamed finds the field of a struct type that has JSON name name, looking into embedded
// (inlined) structs as encoding/json does.
func fieldNamed(parser *crd.Parser, pkg *ctloader.Package, info *ctmarkers.TypeInfo, name string) (*ctmarkers.FieldInfo, *ctloader.Package) {
	for i := range info.Fields {
		f := &info.Fields[i]
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		inline := strings.Contains(f.Tag.Get("json"), ",inline") || (f.Name == "" && tag == "")
		switch {
		case tag == name || (tag == "" && f.Name == name):
			return f, pkg
		case inline && pkg.TypesInfo != nil:
			if embedded, epkg := namedType(parser, pkg, pkg.TypesInfo.TypeOf(f.RawField.Type)); embedded != nil {
				if found, fpkg := fieldNamed(parser, epkg, embedded, name); found != nil {
					return found, fpkg
				}
			}
		}
	}
	return nil, nil
}

// namedType returns the declaration of the named type behind t (through pointers, slices,
// arrays and map values), when the parser knows it.
func namedType(parser *crd.Parser, from *ctloader.Package, t types.Type) (*ctmarkers.TypeInfo, *ctloader.Package) {
	for t != nil {
		switch u := t.(type) {
		case *types.Pointer:
			t = u.Elem()
			continue
		case *types.Slice:
			t = u.Elem()
			continue
		case *types.Array:
			t = u.Elem()
			continue
		case *types.Map:
			t = u.Elem()
			continue
		case *types.Alias:
			t = types.Unalias(u)
			continue
		case *types.Named:
			obj := u.Obj()
			if obj.Pkg() == nil {
				return nil, nil
			}
			pkg := from
			if obj.Pkg().Path() != from.PkgPath {
				pkg = findImport(from, obj.Pkg().Path(), map[*ctloader.Package]bool{})
			}
			if pkg == nil {
				return nil, nil
			}
			if info := parser.Types[crd.TypeIdent{Package: pkg, Name: obj.Name()}]; info != nil && pkg.TypesInfo != nil {
				return info, pkg
			}
		}
		return nil, nil
	}
	return nil, nil
}

// findImport finds a package among the (transitive) imports of from.
func findImport(from *ctloader.Package, path string, seen map[*ctloader.Package]bool) *ctloader.Package {
	if seen[from] {
		return nil
	}
	seen[from] = true
	if p := from.Imports()[path]; p != nil {
		return p
	}
	for _, imp := range from.Imports() {
		if p := findImport(imp, path, seen); p != nil {
			return p
		}
	}
	return nil
}
