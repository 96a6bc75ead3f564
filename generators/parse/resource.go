package parse

import (
	"errors"
	"go/ast"
	"go/token"
	gotypes "go/types"
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
	specs := map[string]*ast.TypeSpec{}
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
				specs[spec.Name.Name] = spec
				if st, ok := spec.Type.(*ast.StructType); ok {
					structs[spec.Name.Name] = st
					for _, field := range st.Fields.List {
						p.applyFieldMarkers(spec.Name.Name, p.fieldMarkersOf(gpkg.Path)[fieldPos(field)], v)
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
		if r := p.resource(c.spec, c.ms, specs, gpkg, v); r != nil {
			out = append(out, r)
		}
	}
	p.checkJSONTags(out, structs)
	slices.SortFunc(out, func(a, b *model.Resource) int { return strings.Compare(a.Kind, b.Kind) })
	return out
}

// markedField is a struct field's names (none when embedded) and its markers.
type markedField struct {
	names   []string
	markers []*markers.Marker
}

// fieldMarkersOf returns the marked struct fields of package pkgPath, by field position
// (fieldPos, where go/types places the field). A package's field markers are read, and their
// problems reported, once, however many versions apply them: a kind declared as a defined type
// of another package's struct applies that struct's field markers to its own version too.
func (p *parser_) fieldMarkersOf(pkgPath string) map[token.Pos]markedField {
	if marks, ok := p.fieldMarks[pkgPath]; ok {
		return marks
	}
	marks := map[token.Pos]markedField{}
	for _, file := range p.load.Files(pkgPath) {
		for _, d := range file.Decls {
			decl, ok := d.(*ast.GenDecl)
			if !ok || decl.Tok != token.TYPE {
				continue
			}
			for _, s := range decl.Specs {
				st, ok := s.(*ast.TypeSpec).Type.(*ast.StructType)
				if !ok {
					continue
				}
				for _, field := range st.Fields.List {
					if ms := p.markersIn(field.Doc, markers.Field); len(ms) > 0 {
						mf := markedField{markers: ms}
						for _, n := range field.Names {
							mf.names = append(mf.names, n.Name)
						}
						marks[fieldPos(field)] = mf
					}
				}
			}
		}
	}
	p.fieldMarks[pkgPath] = marks
	return marks
}

// applyFieldMarkers applies the markers of a struct field of the type typeName to version v
// (its default).
func (p *parser_) applyFieldMarkers(typeName string, field markedField, v *model.Version) {
	f := markers.StructField{Type: typeName, Names: field.names}
	for _, m := range field.markers {
		if effect, ok := m.Args.(markers.FieldEffect); ok {
			if err := effect.ApplyToField(m, f, v, p); err != nil {
				p.errs.Add(m.Pos, "%v", err)
			}
		}
	}
}

// resource reads the kind that spec declares, if one of its markers ms makes it a resource:
// that marker's declaration applies first, then every other marker applies itself. The kind's
// shape (its embedded metadata, Spec, Status, list) is read from its type, not its syntax, so
// that a defined type of another package's kind (gateway-api's v1beta1 `type Gateway
// v1.Gateway`) is a kind as its underlying struct is; specs are the package's type
// declarations, by name, for positions.
func (p *parser_) resource(spec *ast.TypeSpec, ms []*markers.Marker, specs map[string]*ast.TypeSpec, gpkg *gengotypes.Package, v *model.Version) *model.Resource {
	kind := spec.Name.Name
	withMeta := gpkg.Types[kind] != nil && embeddedMeta(gpkg.Types[kind])["ObjectMeta"]
	res := p.declaration(kind, ms, withMeta)
	if res == nil {
		for _, m := range ms {
			if m.NeedsResource() {
				p.errs.Add(m.Pos, "+%s is set on %s, which has no +apigen:resource marker; add one above it or remove this marker", m.Name, kind)
			}
		}
		return nil
	}
	resPos := res.Pos
	if !p.declaredHere(gpkg.Path, spec) {
		return nil // a name declared twice: a type error says so, and go/types knows the other
	}
	t := gpkg.Types[kind]
	if t == nil || t.Kind != gengotypes.Struct {
		p.errs.Add(resPos, "+%s is set on %s, which is not a struct type; a resource is a struct embedding metav1.TypeMeta and metav1.ObjectMeta", res.Name, kind)
		return nil
	}
	if !ast.IsExported(kind) {
		p.errs.Add(resPos, "+%s is set on %s, which is not exported; a kind must start with an upper-case letter", res.Name, kind)
		return nil
	}
	// The markers declare the kind here; settleKinds settles the group's one kind (r.Of).
	r := &model.Resource{Declared: &model.Kind{Name: kind}}
	r.Kind, r.Pos, r.Marker = kind, resPos, "+"+res.Name
	list := gpkg.Types[kind+"List"]
	hasList := list != nil && list.Kind == gengotypes.Struct
	if hasList {
		r.ListKind = kind + "List"
	}
	embeds := embeddedMeta(t)
	if !embeds["TypeMeta"] || !embeds["ObjectMeta"] {
		p.errs.Add(resPos, "+%s is set on %s, which must embed metav1.TypeMeta and metav1.ObjectMeta (with `json:\",inline\"` and `json:\"metadata,omitempty\"`)", res.Name, kind)
	}
	readShape(r, t, gpkg.Path)
	if _, local := spec.Type.(*ast.StructType); !local {
		p.definedKindFieldMarkers(t, v)
	}
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
	kindType := &kindFields{p: p, t: t}
	for _, m := range ms {
		effect, ok := m.Args.(markers.ResourceEffect)
		if !ok {
			continue
		}
		if err := effect.ApplyToResource(m, r, kindType); err != nil {
			p.errs.Add(m.Pos, "%v", err)
		}
	}
	// A marker that leaves the kind out of this version has the last word: the type is then
	// no resource here, whatever else it lacks.
	excluded := false
	for _, m := range ms {
		if effect, ok := m.Args.(markers.Exclusion); ok && !excluded {
			effect.ExcludeFromVersion(m, r, v, p)
			excluded = true
		}
	}
	if excluded {
		return nil
	}
	switch {
	case !hasList && !r.Declared.NeedsList():
		// A virtual kind (a create-only review, as TokenReview): its own storage serves it
		// with no verb that answers with a list, so it needs none, as in kube-apiserver.
	case !hasList && isFallback:
		// client-gen accepts it: a warning, and no client either (kube.Clients leaves it out),
		// since nothing registers the kind.
		p.Warn(resPos, "+%s on %s has no effect: %s is not served and gets no client, since it has no list type, and %s", res.Name, kind, kind, noListHint(r, own))
		return nil
	case !hasList:
		p.errs.Add(resPos, "+%s is set on %s, which has no list type, and %s", res.Name, kind, noListHint(r, own))
	case !embeddedMeta(list)["TypeMeta"] || !embeddedMeta(list)["ListMeta"] || !hasItems(list, t):
		at := resPos
		if spec := specs[r.ListKind]; spec != nil {
			at = p.pos(spec.Type.Pos())
		}
		p.errs.Add(at, "%s must embed metav1.TypeMeta and metav1.ListMeta and have `Items []%s`", r.ListKind, kind)
	}
	r.Hooks = p.hooks(t, r)
	r.Conversion, r.ConversionPos = p.conversionRole(t)
	if r.Hooks.ValidateStatusUpdate && !r.Subresources.Status {
		p.errs.Add(p.methodPos(t, "ValidateStatusUpdate"), "method %s.ValidateStatusUpdate is never called: %s has no status subresource; add +apigen:subresource:status or remove the method", kind, kind)
	}
	return r
}

// definedKindFieldMarkers applies to version v the field markers of a kind declared as a
// defined type of another package's struct (type Gateway v1.Gateway): its fields are that
// struct's, declared, with their markers, in the other package, and they mean for this kind
// what they mean there (a +kubebuilder:default on Status defaults this version's Status too).
// The markers are those of the declaring package's syntax, which the load has when it is an
// API package of the project.
func (p *parser_) definedKindFieldMarkers(t *gengotypes.Type, v *model.Version) {
	if t.GoType == nil {
		return
	}
	st, ok := t.GoType.Underlying().(*gotypes.Struct)
	if !ok || st.NumFields() == 0 || st.Field(0).Pkg() == nil {
		return
	}
	marks := p.fieldMarkersOf(st.Field(0).Pkg().Path())
	for f := range st.Fields() {
		if field, ok := marks[f.Pos()]; ok {
			p.applyFieldMarkers(t.Name.Name, field, v)
		}
	}
}

// declaredHere reports whether spec declares the type go/types knows by its name in package
// pkgPath: of a name declared twice, it keeps one.
func (p *parser_) declaredHere(pkgPath string, spec *ast.TypeSpec) bool {
	pkg := p.load.Package(pkgPath)
	if pkg == nil || pkg.Types == nil {
		return true
	}
	obj := pkg.Types.Scope().Lookup(spec.Name.Name)
	return obj == nil || obj.Pos() == spec.Name.Pos()
}

// fieldPos is where go/types places a struct field: its first name, or its type when embedded.
func fieldPos(f *ast.Field) token.Pos {
	if len(f.Names) > 0 {
		return f.Names[0].Pos()
	}
	return f.Type.Pos()
}

// declaration is the marker among a kind's markers ms that makes it a resource: its one
// outright declaration (+apigen:resource), or else, when the type embeds ObjectMeta (withMeta),
// controller-gen's +kubebuilder:object:root=true, which makes a CRD of it, or else a fallback
// (+genclient); nil when none does.
func (p *parser_) declaration(kind string, ms []*markers.Marker, withMeta bool) *markers.Marker {
	var decl, root, fallback *markers.Marker
	for _, m := range ms {
		switch d := m.Args.(type) {
		case markers.RootDeclaration:
			if d.DeclaresRoot() && withMeta {
				root = m
			}
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
	switch {
	case decl != nil:
		return decl
	case root != nil:
		return root
	}
	return fallback
}

// readShape records whether a kind's struct has Spec and Status fields, and Status's type
// when the kind's package pkg declares it.
func readShape(r *model.Resource, t *gengotypes.Type, pkg string) {
	r.HasSpec, r.HasStatus, r.StatusType = false, false, ""
	for _, m := range t.Members {
		switch {
		case m.Embedded:
		case m.Name == "Spec":
			r.HasSpec = true
		case m.Name == "Status":
			r.HasStatus = true
			st, ptr := m.Type, ""
			if st.Kind == gengotypes.Pointer {
				st, ptr = st.Elem, "*"
			}
			if st.Name.Package == pkg && st.Name.Name != "" {
				r.StatusType = ptr + st.Name.Name
			}
		}
	}
}

// embeddedMeta returns the names of the metav1 types a struct embeds (TypeMeta, ObjectMeta,
// ListMeta).
func embeddedMeta(t *gengotypes.Type) map[string]bool {
	out := map[string]bool{}
	for _, m := range t.Members {
		if m.Embedded && m.Type.Name.Package == metav1Path {
			out[m.Type.Name.Name] = true
		}
	}
	return out
}

// hasItems reports whether a list type has `Items []<kind>`.
func hasItems(list, kind *gengotypes.Type) bool {
	for _, m := range list.Members {
		if m.Name == "Items" && !m.Embedded && m.Type.Kind == gengotypes.Slice && m.Type.Elem.Name == kind.Name {
			return true
		}
	}
	return false
}

const metav1Path = "k8s.io/apimachinery/pkg/apis/meta/v1"

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
