package schema

import (
	"reflect"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/gengo/v2/namer"
	gengotypes "k8s.io/gengo/v2/types"
	"sigs.k8s.io/controller-tools/pkg/crd"
	ctloader "sigs.k8s.io/controller-tools/pkg/loader"

	"github.com/apigen-dev/apigen/internal/jsonview"
)

// hidden describes in a kind's flattened schema only what encoding/json encodes of the
// structs that inline others (json:",inline"). controller-tools puts an inlined struct's
// schema in an allOf and the flattener merges the branches: a field that a shallower one of
// the same JSON name hides (prometheus-operator's ProbeSpec hides the authorization of the
// HTTPConfig it inlines) would add its properties to the shallower field's and, without
// omitempty, its name to the struct's required list, where no object could ever satisfy it
// (encoding/json never carries the hidden field: the server refused every object). So each
// such name gets the schema and the requiredness of the field encoding/json encodes, and a
// name none of whose fields is encoded (fields at one depth that tie) is no property at all,
// as the served OpenAPI (jsonview.View) describes them.
type hidden struct {
	parser   *crd.Parser
	universe gengotypes.Universe
	pkgs     map[string]*ctloader.Package
	// clean are the types under which no struct hides a field.
	clean map[*gengotypes.Type]bool
}

func newHidden(parser *crd.Parser, universe gengotypes.Universe, pkgs []*ctloader.Package) *hidden {
	h := &hidden{parser: parser, universe: universe, pkgs: map[string]*ctloader.Package{}, clean: map[*gengotypes.Type]bool{}}
	var visit func(p *ctloader.Package)
	visit = func(p *ctloader.Package) {
		if h.pkgs[p.PkgPath] != nil {
			return
		}
		h.pkgs[p.PkgPath] = p
		for _, imp := range p.Imports() {
			visit(imp)
		}
	}
	for _, p := range pkgs {
		visit(p)
	}
	return h
}

// fix rewrites s, the flattened schema of the Go type pkgPath.name.
func (h *hidden) fix(s *apiextensionsv1.JSONSchemaProps, pkgPath, name string) {
	if h == nil || h.universe == nil {
		return
	}
	t := h.universe.Type(gengotypes.Name{Package: pkgPath, Name: name})
	if t == nil || t.Kind == gengotypes.Unknown {
		return
	}
	h.walk(s, t)
}

func (h *hidden) walk(s *apiextensionsv1.JSONSchemaProps, t *gengotypes.Type) {
	if s == nil || h.isClean(t, map[*gengotypes.Type]bool{}) {
		return
	}
	t = underlying(t)
	switch t.Kind {
	case gengotypes.Slice, gengotypes.Array:
		if s.Items != nil {
			h.walk(s.Items.Schema, t.Elem)
		}
		return
	case gengotypes.Map:
		if s.AdditionalProperties != nil {
			h.walk(s.AdditionalProperties.Schema, t.Elem)
		}
		return
	case gengotypes.Struct:
	default:
		return
	}
	done := map[string]bool{}
	for _, hd := range jsonview.Hidings(t) {
		if done[hd.Name] {
			continue
		}
		done[hd.Name] = true
		s.Required = slices.DeleteFunc(s.Required, func(n string) bool { return n == hd.Name })
		if len(s.Required) == 0 {
			s.Required = nil
		}
		if hd.By == nil {
			delete(s.Properties, hd.Name)
			continue
		}
		declaring := t
		if len(hd.By) > 1 {
			declaring = underlying(hd.By[len(hd.By)-2].Type)
		}
		prop, required, ok := h.property(declaring, hd.Name)
		if !ok {
			continue
		}
		s.Properties[hd.Name] = prop
		if required {
			s.Required = append(s.Required, hd.Name)
			slices.Sort(s.Required)
		}
	}
	fields := map[string]*gengotypes.Type{}
	encoded(jsonview.View(t), fields, map[*gengotypes.Type]bool{})
	for name, prop := range s.Properties {
		if ft, ok := fields[name]; ok && !h.isClean(ft, map[*gengotypes.Type]bool{}) {
			h.walk(&prop, ft)
			s.Properties[name] = prop
		}
	}
}

// property is the flattened schema controller-tools gives the field of JSON name name that
// struct t declares itself, and whether t's schema requires it.
func (h *hidden) property(t *gengotypes.Type, name string) (apiextensionsv1.JSONSchemaProps, bool, bool) {
	pkg := h.pkgs[t.Name.Package]
	if pkg == nil {
		return apiextensionsv1.JSONSchemaProps{}, false, false
	}
	ident := crd.TypeIdent{Package: pkg, Name: t.Name.Name}
	h.parser.NeedSchemaFor(ident)
	raw, ok := h.parser.Schemata[ident]
	if !ok {
		return apiextensionsv1.JSONSchemaProps{}, false, false
	}
	prop, ok := raw.Properties[name]
	if !ok {
		return apiextensionsv1.JSONSchemaProps{}, false, false
	}
	f := &crd.Flattener{Parser: h.parser, LookupReference: h.lookup}
	flat := crd.FlattenEmbedded(f.FlattenSchema(prop, pkg), pkg)
	return *flat, slices.Contains(raw.Required, name), true
}

// lookup resolves a reference controller-tools wrote in pkg's schemas (the parser's own
// resolution is not exported; references name the package by path).
func (h *hidden) lookup(ref string, pkg *ctloader.Package) (crd.TypeIdent, error) {
	name, path, err := crd.RefParts(ref)
	if err != nil {
		return crd.TypeIdent{}, err
	}
	if path == "" {
		return crd.TypeIdent{Package: pkg, Name: name}, nil
	}
	if p := pkg.Imports()[path]; p != nil {
		return crd.TypeIdent{Package: p, Name: name}, nil
	}
	return crd.TypeIdent{Package: h.pkgs[path], Name: name}, nil
}

// isClean reports whether no struct under t hides a field.
func (h *hidden) isClean(t *gengotypes.Type, onPath map[*gengotypes.Type]bool) bool {
	if c, ok := h.clean[t]; ok {
		return c
	}
	if onPath[t] {
		return true
	}
	onPath[t] = true
	defer delete(onPath, t)
	clean := true
	switch u := underlying(t); u.Kind {
	case gengotypes.Slice, gengotypes.Array, gengotypes.Map:
		clean = h.isClean(u.Elem, onPath)
	case gengotypes.Struct:
		if len(jsonview.Hidings(u)) > 0 {
			clean = false
			break
		}
		for _, m := range u.Members {
			if !h.isClean(m.Type, onPath) {
				clean = false
				break
			}
		}
	}
	if len(onPath) == 1 || !clean {
		h.clean[t] = clean
	}
	return clean
}

// encoded adds to fields the JSON names of struct t's fields and their types, following its
// inlined members (t is a jsonview.View, where no two of them share a name).
func encoded(t *gengotypes.Type, fields map[string]*gengotypes.Type, onPath map[*gengotypes.Type]bool) {
	t = underlying(t)
	if t.Kind != gengotypes.Struct || onPath[t] {
		return
	}
	onPath[t] = true
	defer delete(onPath, t)
	for i := range t.Members {
		m := &t.Members[i]
		if jsonview.Inlined(m) {
			encoded(m.Type, fields, onPath)
			continue
		}
		if !m.Embedded && namer.IsPrivateGoName(m.Name) {
			continue
		}
		tag := reflect.StructTag(m.Tags).Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			name = m.Name
		}
		fields[name] = m.Type
	}
}

// underlying follows pointers and aliases (gengo's kind of a type defined as another named
// type, too) to the type they stand for.
func underlying(t *gengotypes.Type) *gengotypes.Type {
	for t != nil {
		switch t.Kind {
		case gengotypes.Pointer:
			t = t.Elem
		case gengotypes.Alias:
			t = t.Underlying
		default:
			return t
		}
	}
	return t
}
