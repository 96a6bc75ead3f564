package parse

import (
	"errors"
	"go/ast"
	"go/token"
	"slices"
	"strings"

	gengotypes "k8s.io/gengo/v2/types"

	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/model"
)

// resources finds the types marked as resources and reads their shape, and applies the field
// markers of the package's structs to version v.
func (p *parser_) resources(files []*ast.File, gpkg *gengotypes.Package, v *model.Version) []*model.Resource {
	structs := map[string]*ast.StructType{}
	var out []*model.Resource
	type marked struct {
		spec *ast.TypeSpec
		ms   []*markers.Marker
	}
	var candidates []marked
	for _, f := range files {
		endLines := commentEndLines(f, p.fset)
		for _, d := range f.Decls {
			decl, ok := d.(*ast.GenDecl)
			if !ok || decl.Tok != token.TYPE {
				continue
			}
			for _, s := range decl.Specs {
				spec := s.(*ast.TypeSpec)
				if st, ok := spec.Type.(*ast.StructType); ok {
					structs[spec.Name.Name] = st
					for _, field := range st.Fields.List {
						p.fieldMarkers(spec.Name.Name, field, v)
					}
				}
				var ms []*markers.Marker
				comments := typeComments(endLines, p.fset, spec)
				for _, cg := range comments {
					ms = append(ms, p.markersIn(cg, markers.Type)...)
				}
				if len(ms) > 0 && !p.invalidResourceMarker(comments) {
					candidates = append(candidates, marked{spec, ms})
				}
			}
		}
	}
	for _, c := range candidates {
		if r := p.resource(c.spec, c.ms, structs, gpkg); r != nil {
			out = append(out, r)
		}
	}
	p.checkJSONTags(out, structs)
	slices.SortFunc(out, func(a, b *model.Resource) int { return strings.Compare(a.Kind, b.Kind) })
	return out
}

// fieldMarkers applies the markers of a struct field of the type typeName to version v (its
// default); the others are only checked.
func (p *parser_) fieldMarkers(typeName string, field *ast.Field, v *model.Version) {
	f := markers.StructField{Type: typeName}
	for _, n := range field.Names {
		f.Names = append(f.Names, n.Name)
	}
	for _, m := range p.markersIn(field.Doc, markers.Field) {
		if effect, ok := m.Args.(markers.FieldEffect); ok {
			if err := effect.ApplyToField(m, f, v, p); err != nil {
				p.errs.Add(m.Pos, "%v", err)
			}
		}
	}
}

// resource reads the kind that spec declares, if one of its markers ms makes it a resource:
// that marker's declaration applies first, then every other marker applies itself.
func (p *parser_) resource(spec *ast.TypeSpec, ms []*markers.Marker, structs map[string]*ast.StructType, gpkg *gengotypes.Package) *model.Resource {
	kind := spec.Name.Name
	res := p.declaration(kind, ms)
	if res == nil {
		for _, m := range ms {
			if m.NeedsResource() {
				p.errs.Add(m.Pos, "+%s is set on %s, which has no +apigen:resource marker; add one above it or remove this marker", m.Name, kind)
			}
		}
		return nil
	}
	resPos := res.Pos
	st, ok := structs[kind]
	if !ok {
		p.errs.Add(resPos, "+%s is set on %s, which is not a struct type; a resource is a struct embedding metav1.TypeMeta and metav1.ObjectMeta", res.Name, kind)
		return nil
	}
	if !ast.IsExported(kind) {
		p.errs.Add(resPos, "+%s is set on %s, which is not exported; a kind must start with an upper-case letter", res.Name, kind)
		return nil
	}
	r := &model.Resource{}
	r.Kind, r.Pos, r.Marker = kind, resPos, "+"+res.Name
	list, hasList := structs[kind+"List"]
	if hasList {
		r.ListKind = kind + "List"
	}
	embeds := embeddedMeta(st)
	if !embeds["TypeMeta"] || !embeds["ObjectMeta"] {
		p.errs.Add(resPos, "+%s is set on %s, which must embed metav1.TypeMeta and metav1.ObjectMeta (with `json:\",inline\"` and `json:\"metadata,omitempty\"`)", res.Name, kind)
	}
	readShape(r, st)
	var own markers.OwnStorage
	fallback, isFallback := res.Args.(markers.FallbackDeclaration)
	if isFallback {
		fallback.DeclareFallback(res, r)
		own = fallback
	} else {
		decl := res.Args.(markers.Declaration)
		decl.DeclareResource(res, r)
		own = decl
	}
	// Every other marker of the kind applies itself.
	kindType := &kindFields{p: p, t: gpkg.Types[kind]}
	for _, m := range ms {
		effect, ok := m.Args.(markers.ResourceEffect)
		if !ok {
			continue
		}
		if err := effect.ApplyToResource(m, r, kindType); err != nil {
			p.errs.Add(m.Pos, "%v", err)
		}
	}
	switch {
	case !hasList && !r.NeedsList():
		// A virtual kind (a create-only review, as TokenReview): its own storage serves it
		// with no verb that answers with a list, so it needs none, as in kube-apiserver.
	case !hasList && isFallback:
		// client-gen accepts it: a warning, and no client either (kube.Clients leaves it out),
		// since nothing registers the kind.
		p.Warn(resPos, "+%s on %s has no effect: %s is not served and gets no client, since it has no list type, and %s", res.Name, kind, kind, noListHint(r, own))
		return nil
	case !hasList:
		p.errs.Add(resPos, "+%s is set on %s, which has no list type, and %s", res.Name, kind, noListHint(r, own))
	case !embeddedMeta(list)["TypeMeta"] || !embeddedMeta(list)["ListMeta"] || !hasItems(list, kind):
		p.errs.Add(p.pos(list.Pos()), "%s must embed metav1.TypeMeta and metav1.ListMeta and have `Items []%s`", r.ListKind, kind)
	}
	r.Hooks = p.hooks(gpkg.Types[kind], r)
	r.Conversion, r.ConversionPos = p.conversionRole(gpkg.Types[kind])
	if r.Hooks.ValidateStatusUpdate && !r.Subresources.Status {
		p.errs.Add(p.methodPos(gpkg.Types[kind], "ValidateStatusUpdate"), "method %s.ValidateStatusUpdate is never called: %s has no status subresource; add +apigen:subresource:status or remove the method", kind, kind)
	}
	return r
}

// declaration is the marker among a kind's markers ms that makes it a resource: its one
// outright declaration (+apigen:resource), or else a fallback (+genclient), nil when none does.
func (p *parser_) declaration(kind string, ms []*markers.Marker) *markers.Marker {
	var decl, fallback *markers.Marker
	for _, m := range ms {
		switch d := m.Args.(type) {
		case markers.Declaration:
			if decl != nil {
				p.errs.Add(m.Pos, "+%s: %s already has +%s at %s", m.Name, kind, decl.Name, decl.Pos)
				continue
			}
			decl = m
		case markers.FallbackDeclaration:
			if d.DeclaresWith(ms) {
				fallback = m
			}
		}
	}
	if decl != nil {
		return decl
	}
	return fallback
}

// readShape records whether a kind's struct has Spec and Status fields, and Status's type.
func readShape(r *model.Resource, st *ast.StructType) {
	r.HasSpec, r.HasStatus, r.StatusType = false, false, ""
	for _, f := range st.Fields.List {
		for _, n := range f.Names {
			switch n.Name {
			case "Spec":
				r.HasSpec = true
			case "Status":
				r.HasStatus, r.StatusType = true, localTypeName(f.Type)
			}
		}
	}
}

// embeddedMeta returns the names of the metav1 types a struct embeds (TypeMeta, ObjectMeta,
// ListMeta). Any import name of metav1 is fine; only the selector matters here, and the loader
// has type-checked the package.
func embeddedMeta(st *ast.StructType) map[string]bool {
	out := map[string]bool{}
	for _, f := range st.Fields.List {
		if len(f.Names) != 0 {
			continue
		}
		if sel, ok := f.Type.(*ast.SelectorExpr); ok {
			out[sel.Sel.Name] = true
		}
	}
	return out
}

func hasItems(st *ast.StructType, kind string) bool {
	for _, f := range st.Fields.List {
		for _, n := range f.Names {
			if n.Name != "Items" {
				continue
			}
			if arr, ok := f.Type.(*ast.ArrayType); ok && arr.Len == nil {
				if id, ok := arr.Elt.(*ast.Ident); ok && id.Name == kind {
					return true
				}
			}
		}
	}
	return false
}

// localTypeName returns the name of a type declared in the same package ("FooStatus" or
// "*FooStatus"), or "" for anything else.
func localTypeName(expr ast.Expr) string {
	switch t := expr.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.StarExpr:
		if id, ok := t.X.(*ast.Ident); ok {
			return "*" + id.Name
		}
	}
	return ""
}

// kindFields answers a type marker's questions about the kind's Go type.
type kindFields struct {
	p *parser_
	t *gengotypes.Type
	// scale is the kind's first scale subresource marker.
	scale *markers.Marker
}

func (k *kindFields) SelectableField(jsonPath string) (model.SelectableField, error) {
	return selectableField(k.t, jsonPath)
}

func (k *kindFields) ColumnPath(jsonPath string) error { return columnPath(k.t, jsonPath) }

func (k *kindFields) Warn(pos token.Position, format string, args ...any) {
	k.p.Warn(pos, format, args...)
}

func (k *kindFields) Scale(m *markers.Marker) *model.Scale {
	if k.scale != nil {
		k.p.errs.Add(m.Pos, "+%s: %s already has +%s at %s", m.Name, k.t.Name.Name, k.scale.Name, k.scale.Pos)
		return nil
	}
	k.scale = m
	return k.p.scaleSubresource(m, k.t)
}

func (k *kindFields) ScaleFields(a *markers.Scale) (*model.Scale, error) {
	s, problems := scaleFields(k.t, a)
	if len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "; "))
	}
	return s, nil
}
