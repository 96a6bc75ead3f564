// Package schema turns each served kind's Go type into the OpenAPI v3 schema that
// controller-gen would write into the kind's CustomResourceDefinition, with every validation
// marker users already write (+kubebuilder:validation:*, XValidation CEL rules, +listType,
// +optional, ...). sigs.k8s.io/controller-tools gives the marker semantics, so a type means
// here what it means as a CRD; k8s.io/apiextensions-apiserver checks the result the way
// kube-apiserver checks a CRD on create, so a CEL rule that does not compile or costs too
// much is an apigen generate error at the marker, not a 500 at run time.
package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/gengo/v2"
	gengotypes "k8s.io/gengo/v2/types"
	"sigs.k8s.io/controller-tools/pkg/crd"
	crdmarkers "sigs.k8s.io/controller-tools/pkg/crd/markers"
	ctloader "sigs.k8s.io/controller-tools/pkg/loader"
	ctmarkers "sigs.k8s.io/controller-tools/pkg/markers"

	"github.com/apigen-dev/apigen/generators/loader"
	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/model"
)

// Build computes the schema of every served kind of the project and stores it in the model
// (Resource.Schema, one per version, and Resource.OpenAPISchema where the served OpenAPI shows
// more). It reads the run's one load: controller-tools parses
// nothing again and type-checks only what the schemas refer to. Problems with the markers are
// positioned errors.
func Build(load *loader.Result, p *model.Project) error {
	root := load.Root
	var pkgs []*ctloader.Package
	for _, g := range p.Groups {
		for _, v := range g.Versions {
			if len(v.Resources) == 0 {
				continue
			}
			pkg := load.Package(v.Package)
			if pkg == nil {
				return fmt.Errorf("%s is not part of the load of %s", v.Package, root)
			}
			pkgs = append(pkgs, pkg)
		}
	}
	if len(pkgs) == 0 {
		return nil
	}
	own := projectPackages(load, pkgs)
	p.TypePackages, p.ModelPackages = nil, nil
	for _, pkg := range own {
		if slices.Contains(pkgs, pkg) {
			continue
		}
		p.TypePackages = append(p.TypePackages, pkg.PkgPath)
		if name := modelPackage(load, pkg.PkgPath); name != "" {
			if p.ModelPackages == nil {
				p.ModelPackages = map[string]string{}
			}
			p.ModelPackages[pkg.PkgPath] = name
		}
	}
	slices.Sort(p.TypePackages)
	enforced, err := newParser(root, pkgs, own, false)
	if err != nil {
		return err
	}
	byPath := map[string]*ctloader.Package{}
	for _, pkg := range pkgs {
		byPath[pkg.PkgPath] = pkg
	}

	var errs model.ErrorList
	if err := eachSchema(p, enforced, newHidden(enforced, load.Universe, pkgs), byPath, func(r *model.Resource, b []byte) { r.Schema = b }); err != nil {
		return err
	}
	goTypes := map[string]*types.Package{}
	for path, pkg := range byPath {
		goTypes[path] = pkg.Types
	}
	if err := markSatisfiedByType(p, goTypes); err != nil {
		return err
	}
	if err := buildPublished(root, p, load.Universe, pkgs, own, byPath); err != nil {
		return err
	}
	var warnings model.ErrorList
	// controller-tools records a finding in the package that declares the type, so the
	// project's other packages the kinds use (a pkg/apis/shared type a kind embeds) have theirs
	// too, under the same rules; so are their float fields served.
	for _, pkg := range own {
		e, w := packageErrors(root, pkg)
		errs, warnings = append(errs, e...), append(warnings, w...)
		warnings = append(warnings, floatFields(root, pkg)...)
	}
	warnings = append(warnings, openSchemaWarnings(root, p, enforced, byPath)...)
	warnings = append(warnings, requiredStatusWarnings(root, p, enforced, byPath)...)
	crdOnly, err := check(root, p, enforced, byPath)
	if err != nil {
		list, ok := err.(model.ErrorList)
		if !ok {
			return err
		}
		errs = append(errs, list...)
	}
	if w := append(append(p.Warnings, warnings...), crdOnly...).Err(); w != nil {
		p.Warnings = w.(model.ErrorList)
	}
	if len(errs) > 0 {
		// A run that fails reports its warnings too, among the errors by position.
		return append(errs, p.Warnings...).Err()
	}
	return nil
}

// buildPublished sets Resource.OpenAPISchema where what the server publishes differs from
// what it enforces: a second parser over the same packages, which publishes the requiredness
// of +k8s:required and +k8s:optional fields (see requiredness), when a package of the
// project's the kinds use has one. Its findings are the first parser's, so they are not kept.
func buildPublished(root string, p *model.Project, universe gengotypes.Universe, pkgs, own []*ctloader.Package, byPath map[string]*ctloader.Package) error {
	if !slices.ContainsFunc(own, func(pkg *ctloader.Package) bool {
		return mentions(pkg, "+k8s:required") || mentions(pkg, "+k8s:optional")
	}) {
		return nil
	}
	found := map[*ctloader.Package]int{}
	for _, pkg := range own {
		found[pkg] = len(pkg.Errors)
	}
	published, err := newParser(root, pkgs, own, true)
	if err != nil {
		return err
	}
	err = eachSchema(p, published, newHidden(published, universe, pkgs), byPath, func(r *model.Resource, b []byte) {
		if len(r.Schema) > 0 && !bytes.Equal(b, r.Schema) {
			r.OpenAPISchema = b
		}
	})
	if err != nil {
		return err
	}
	for pkg, n := range found {
		pkg.Errors = pkg.Errors[:n]
	}
	return nil
}

// eachSchema hands set the flattened schema parser computes for each served kind of the
// project, in each version it has one, describing what encoding/json encodes of the structs
// that inline others (hidden).
func eachSchema(p *model.Project, parser *crd.Parser, h *hidden, byPath map[string]*ctloader.Package, set func(r *model.Resource, schema []byte)) error {
	for _, g := range p.Groups {
		for _, v := range g.Versions {
			pkg := byPath[v.Package]
			if pkg == nil {
				continue
			}
			for _, r := range v.Resources {
				before := len(pkg.Errors)
				b, ok, err := flattened(parser, h, pkg, r.Kind)
				if err != nil {
					return err
				}
				placeFlattenErrors(pkg, before, v, r)
				if ok {
					set(r, b)
				}
			}
		}
	}
	return nil
}

// placeFlattenErrors gives the errors controller-tools recorded in pkg, from before on, without
// a position (flattening a kind's schema has none to give) the position of the kind's type and
// says whose schema they are about.
func placeFlattenErrors(pkg *ctloader.Package, before int, v *model.Version, r *model.Resource) {
	for i := before; i < len(pkg.Errors); i++ {
		e := &pkg.Errors[i]
		// controller-tools writes "<package>:-" for an error it has no position for.
		if e.Pos != "" && !strings.HasSuffix(e.Pos, ":-") {
			continue
		}
		e.Pos = v.DeclPos[r.Kind].String()
		e.Msg = fmt.Sprintf("the schema of %s in %s: %s", r.Kind, v.Name, e.Msg)
		if strings.Contains(e.Msg, "conflicting types in allOf branches") {
			e.Msg += " (controller-gen merges the schemas of fields of one JSON name under inlined structs, " +
				"of which encoding/json encodes one at most"
			if slices.ContainsFunc(v.HiddenFields, func(f model.HiddenField) bool { return !f.EmptyBecomesNil }) {
				e.Msg += ": the warnings at the hidden fields say which"
			}
			e.Msg += "; give them one type)"
		}
	}
}

// mentions says whether a comment in pkg's files has text.
func mentions(pkg *ctloader.Package, text string) bool {
	for _, f := range pkg.Syntax {
		for _, g := range f.Comments {
			for _, c := range g.List {
				if strings.Contains(c.Text, text) {
					return true
				}
			}
		}
	}
	return false
}

// newParser is a controller-tools CRD parser over the version packages, with every CRD marker
// but the +k8s: tags controller-tools maps into a schema (markers.Declarative: required,
// optional, minimum, maximum, maxItems, enum, listType, listMapKey, immutable). Declarative
// validation (kube.Validation) runs them as kube-apiserver runs a built-in type's, and the
// schema's forms differ: a list-set's items cannot be correlated for ratcheting there, so an
// unchanged item broke an update the rules let through; +k8s:immutable became a CEL transition
// rule (self == oldSelf), which lets a field left empty at create be set later. The served
// OpenAPI gets what kube-apiserver publishes of them through openapi-gen
// (kube.publishDeclarativeTags).
//
// Requiredness is the exception: +k8s:required and +k8s:optional declare it, as k8s.io/api
// declares it for built-in types, on the fields of every package of the project the kinds use
// (own: the version packages and the packages they import from the project, such as a
// pkg/apis/shared type a kind embeds), read by requiredness.
func newParser(root string, pkgs, own []*ctloader.Package, published bool) (*crd.Parser, error) {
	registry := &ctmarkers.Registry{}
	for _, def := range crdmarkers.AllDefinitions {
		if markers.Declarative(def.Name) {
			continue
		}
		if err := def.Register(registry); err != nil {
			return nil, err
		}
	}
	for _, name := range []string{"k8s:optional", "k8s:required"} {
		// struct{}: requiredness only, none of controller-tools' minLength for +k8s:required.
		if err := registry.Register(ctmarkers.Must(ctmarkers.MakeDefinition(name, ctmarkers.DescribesField, struct{}{}))); err != nil {
			return nil, err
		}
	}
	parser := &crd.Parser{
		Collector: &ctmarkers.Collector{Registry: registry},
		Checker:   &ctloader.TypeChecker{},
		// Floats are what the projects that have them asked controller-gen for
		// (crd:allowDangerousTypes=true, as ray-project/kuberay's Makefile does): a "number"
		// in the schema, with a warning at each field (floatFields).
		AllowDangerousTypes: true,
		// An ObjectMeta below the top level (a pod template's) has the schema controller-gen
		// writes with crd:generateEmbeddedObjectMeta=true (name, namespace, labels, annotations,
		// finalizers), so CEL rules and the served schema see its fields. The server keeps all
		// of them whatever the schema says (Prune leaves typed parts alone), as kube-apiserver
		// keeps a built-in type's. The top-level metadata stays a bare object (forServing).
		GenerateEmbeddedObjectMeta: true,
	}
	crd.AddKnownTypes(parser)
	var errs model.ErrorList
	for _, pkg := range own {
		// The collector keeps each package's markers, so controller-tools reads the edited
		// ones wherever a kind's schema reaches the package.
		byNode, err := parser.Collector.MarkersInPackage(pkg)
		if err != nil {
			list, err := markerErrors(root, pkg, err)
			if err != nil {
				return nil, err
			}
			errs = append(errs, list...)
			continue
		}
		for _, values := range byNode {
			requiredness(values, published)
		}
	}
	if len(errs) > 0 {
		return nil, errs.Err()
	}
	for _, pkg := range pkgs {
		parser.NeedPackage(pkg)
	}
	return parser, nil
}

// requiredness leaves in a field's markers the ones that say whether the schema requires the
// field, as kube-apiserver decides it for a built-in type's field with the same tags. A field
// with +k8s:required or +k8s:optional has its requiredness enforced by declarative validation
// alone, as kube-apiserver enforces it: its required check ratchets (an update that leaves an
// absent required field absent passes), where the schema's would refuse every change of the
// object around the field. So the enforced schema requires no such field, whatever else it
// says (+required, +kubebuilder:validation:Required), and a +k8s:optional pointer without
// omitempty is not refused when absent.
//
// The published schema (published true), the one the served OpenAPI shows, says what
// kube-apiserver publishes: openapi-gen reads +required and +optional, which k8s.io/api writes
// beside the +k8s: tags and apigen supplies where they are missing, and a written one wins,
// with kube.publishDeclarativeTags' warning when it disagrees (controller-tools would let
// +k8s:optional win over +required). Without one, the +k8s: tag decides: it declares the
// API's contract, so +kubebuilder:validation:Optional beside +k8s:required, which says only
// what a CRD's schema would enforce (and the enforced schema does not require the field
// anyway), does not make the published field optional, nor +kubebuilder:validation:Required
// beside +k8s:optional a required one.
//
// Fields without either +k8s: tag keep controller-tools' meaning of their markers.
func requiredness(values ctmarkers.MarkerValues, published bool) {
	required, optional := values.Get("k8s:required") != nil, values.Get("k8s:optional") != nil
	if !required && !optional {
		return
	}
	written := ""
	switch {
	case values.Get("optional") != nil:
		written = "optional"
	case values.Get("required") != nil:
		written = "required"
	}
	for _, name := range []string{"k8s:required", "k8s:optional", "required", "optional", "kubebuilder:validation:Required", "kubebuilder:validation:Optional"} {
		delete(values, name)
	}
	switch {
	case !published:
		values["optional"] = []any{struct{}{}}
	case written != "":
		values[written] = []any{struct{}{}}
	case required:
		values["required"] = []any{struct{}{}}
	default:
		values["optional"] = []any{struct{}{}}
	}
}

// projectPackages are the version packages pkgs and the project module's packages whose types
// theirs use (through fields, elements, keys and underlying types, as loader.ReferencedPackages
// follows them): the packages whose types the kinds' schemas are made of. A package imported
// for anything else (a constant, a function) is not one of them.
func projectPackages(load *loader.Result, pkgs []*ctloader.Package) []*ctloader.Package {
	// controller-tools' records of the project's packages, found through the imports.
	byPath := map[string]*ctloader.Package{}
	var visit func(pkg *ctloader.Package)
	visit = func(pkg *ctloader.Package) {
		if byPath[pkg.PkgPath] != nil || !load.InModule(pkg.PkgPath) {
			return
		}
		byPath[pkg.PkgPath] = pkg
		for _, imported := range pkg.Imports() {
			visit(imported)
		}
	}
	roots := make([]string, len(pkgs))
	for i, pkg := range pkgs {
		visit(pkg)
		roots[i] = pkg.PkgPath
	}
	out := slices.Clone(pkgs)
	for _, path := range loader.ReferencedPackages(load.Universe, roots) {
		if pkg := byPath[path]; pkg != nil && !slices.Contains(out, pkg) {
			out = append(out, pkg)
		}
	}
	return out
}

// modelPackage is the OpenAPI model package a package declares (+k8s:openapi-model-package),
// empty when it declares none.
func modelPackage(load *loader.Result, pkgPath string) string {
	if pkg := load.Universe[pkgPath]; pkg != nil {
		if values := gengo.ExtractCommentTags("+", pkg.Comments)["k8s:openapi-model-package"]; len(values) > 0 {
			return values[0]
		}
	}
	return ""
}

// flattened is the schema of the kind's type in pkg, ready to serve, as JSON; false when
// controller-tools has none (its errors say why).
func flattened(parser *crd.Parser, h *hidden, pkg *ctloader.Package, kind string) ([]byte, bool, error) {
	ident := crd.TypeIdent{Package: pkg, Name: kind}
	parser.NeedFlattenedSchemaFor(ident)
	s, ok := parser.FlattenedSchemata[ident]
	if !ok {
		return nil, false, nil
	}
	s = *s.DeepCopy()
	h.fix(&s, pkg.PkgPath, kind)
	forServing(&s)
	openEmptySchemas(&s)
	b, err := json.Marshal(&s)
	return b, err == nil, err
}

// forServing prepares a kind's schema for the server: descriptions go (openapi-gen serves the
// documentation; the validators never read it) and the top-level metadata is what a CRD
// allows there, a bare object, as controller-gen writes it too.
func forServing(s *apiextensionsv1.JSONSchemaProps) {
	crd.TruncateDescription(s, 0)
	if _, ok := s.Properties["metadata"]; ok {
		s.Properties["metadata"] = apiextensionsv1.JSONSchemaProps{Type: "object"}
	}
}

// packageErrors are controller-tools' findings in one package of the project (a version
// package, or another the kinds' types are declared in), marker syntax, a marker on the wrong
// kind of field, as positioned errors. Type errors are left to apigen's own type check,
// which reports them with the model's errors. A validation marker on a field of a type it
// cannot constrain (+listType on a string, a MaxLength on a list) is a warning instead:
// controller-gen before v0.20 accepts it and drops it, so types generated with it (and the
// CRDs they ship) have it without effect; controller-tools applies nothing of such a marker,
// and neither does the server. (Upstream openapi-gen publishes a +listType on a []byte as
// written, as k8s.io/api's and kube-aggregator's OpenAPI show, and so does the served OpenAPI,
// which openapi-gen writes: a list type of a string constrains nothing.)
func packageErrors(root string, pkg *ctloader.Package) (errs, warnings model.ErrorList) {
	for _, e := range pkg.Errors {
		if e.Kind == packages.TypeError {
			continue
		}
		pos := loader.ParsePosition(e.Pos)
		if word, ok := strings.CutPrefix(e.Msg, "must apply "); ok {
			word, _, _ = strings.Cut(word, " ")
			what := "a validation marker of this field"
			if at, text, ok := markerAbove(pkg, pos, word); ok {
				pos, what = at, "+"+text
			}
			warnings.Add(relative(root, pos), "warning: %s has no effect: %s (controller-gen before v0.20 accepts it and drops it; the server enforces nothing of it)", what, e.Msg)
			continue
		}
		errs = append(errs, &model.Error{Pos: relative(root, pos), Msg: e.Msg})
	}
	return errs, warnings
}

// markerErrors are the markers of pkg that controller-tools cannot parse (an argument of the
// wrong type, +kubebuilder:validation:Minimum=abc), as errors at each marker that quote it;
// err is the collector's error for the package.
func markerErrors(root string, pkg *ctloader.Package, err error) (model.ErrorList, error) {
	var list ctloader.ErrList
	if !errors.As(err, &list) {
		return nil, err
	}
	var errs model.ErrorList
	for _, e := range list {
		var at ctloader.PositionedError
		if !errors.As(e, &at) {
			return nil, err
		}
		text := ""
		for _, f := range pkg.Syntax {
			for _, g := range f.Comments {
				for _, c := range g.List {
					if c.Pos() == at.Pos {
						text = strings.TrimSpace(strings.TrimPrefix(c.Text, "//"))
					}
				}
			}
		}
		errs.Add(relative(root, pkg.Fset.Position(at.Pos)), "%s: %s", text, at.Error())
	}
	return errs, nil
}

// markerAbove finds, in the doc comment of the field declared at pos, the marker that
// controller-tools calls word (listType, maxlength, minitems: its name without
// "kubebuilder:validation:", in any case), with its position and text.
func markerAbove(pkg *ctloader.Package, pos token.Position, word string) (token.Position, string, bool) {
	for _, f := range pkg.Syntax {
		if pkg.Fset.Position(f.Pos()).Filename != pos.Filename {
			continue
		}
		var found *ast.Comment
		ast.Inspect(f, func(n ast.Node) bool {
			field, ok := n.(*ast.Field)
			if !ok || found != nil {
				return found == nil
			}
			if pkg.Fset.Position(field.Pos()).Line != pos.Line || field.Doc == nil {
				return true
			}
			for _, c := range field.Doc.List {
				text := strings.TrimSpace(strings.TrimPrefix(c.Text, "//"))
				name, _, _ := strings.Cut(strings.TrimPrefix(text, "+"), "=")
				name = strings.TrimPrefix(name, "kubebuilder:validation:")
				if strings.HasPrefix(text, "+") && strings.EqualFold(strings.TrimSuffix(name, "s"), strings.TrimSuffix(word, "s")) {
					found = c
				}
			}
			return false
		})
		if found != nil {
			return pkg.Fset.Position(found.Pos()), strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(found.Text, "//")), "+"), true
		}
	}
	return pos, "", false
}

// relative makes a position's file name relative to the project root, as in every error of apigen's.
func relative(root string, pos token.Position) token.Position {
	if rel, err := filepath.Rel(root, pos.Filename); err == nil && filepath.IsAbs(pos.Filename) {
		pos.Filename = filepath.ToSlash(rel)
	}
	return pos
}

// floatFields warns at each struct field of a package typed float32 or float64 (or a pointer,
// slice or map of them): controller-gen refuses them unless the project sets
// crd:allowDangerousTypes=true, which a project with such fields does; the schema has them as
// "number", as in the CRDs it ships.
func floatFields(root string, pkg *ctloader.Package) model.ErrorList {
	var warnings model.ErrorList
	for _, f := range pkg.Syntax {
		ast.Inspect(f, func(n ast.Node) bool {
			st, ok := n.(*ast.StructType)
			if !ok {
				return true
			}
			for _, field := range st.Fields.List {
				t := field.Type
				for {
					switch x := t.(type) {
					case *ast.StarExpr:
						t = x.X
						continue
					case *ast.ArrayType:
						t = x.Elt
						continue
					case *ast.MapType:
						t = x.Value
						continue
					}
					break
				}
				id, ok := t.(*ast.Ident)
				if !ok || (id.Name != "float32" && id.Name != "float64") || len(field.Names) == 0 {
					continue
				}
				warnings.Add(relative(root, pkg.Fset.Position(id.Pos())), "warning: %s is a %s, served as a JSON number: controller-gen accepts floats only with crd:allowDangerousTypes=true, which a project with such a field sets, and its CRD has them so", field.Names[0].Name, id.Name)
			}
			return true
		})
	}
	return warnings
}
