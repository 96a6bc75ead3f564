package parse

import (
	"reflect"
	"slices"
	"strings"

	"k8s.io/gengo/v2"
	"k8s.io/gengo/v2/types"

	"github.com/apigen-dev/apigen/generators/model"
)

// structDocs fills Version.Structs: each version's kinds and the structs of its package they
// reach through their fields, as the API reference documents them. A kind the load has no
// type for gets none (the reference says so).
func structDocs(universe types.Universe, g *model.Group) {
	for _, v := range g.Versions {
		pkg := universe[v.Package]
		if pkg == nil {
			continue
		}
		v.Structs = map[string]*model.StructDoc{}
		var queue []*types.Type
		for _, r := range v.Resources {
			if t := pkg.Types[r.Kind]; t != nil && v.Structs[t.Name.Name] == nil {
				v.Structs[t.Name.Name] = &model.StructDoc{}
				queue = append(queue, t)
			}
		}
		for len(queue) > 0 {
			t := queue[0]
			queue = queue[1:]
			doc := v.Structs[t.Name.Name]
			*doc = model.StructDoc{Name: t.Name.Name, Doc: docOf(t.CommentLines), Fields: fieldDocs(pkg, t)}
			for _, f := range doc.Fields {
				for _, name := range f.Structs {
					if v.Structs[name] == nil {
						v.Structs[name] = &model.StructDoc{}
						queue = append(queue, pkg.Types[name])
					}
				}
			}
		}
	}
}

// fieldDocs lists t's JSON fields in declaration order, with inline members' fields in their
// place; TypeMeta (apiVersion and kind) is left out, as every kind has it.
func fieldDocs(pkg *types.Package, t *types.Type) []model.FieldDoc {
	var out []model.FieldDoc
	for _, m := range t.Members {
		tag, hasJSON := reflect.StructTag(m.Tags).Lookup("json")
		name, opts, _ := strings.Cut(tag, ",")
		if m.Embedded && hasJSON && name == "" {
			if m.Type.Name.Name != "TypeMeta" {
				out = append(out, fieldDocs(pkg, throughPointers(m.Type))...)
			}
			continue
		}
		if !hasJSON || name == "" {
			name = m.Name
		}
		if name == "-" {
			continue
		}
		_, tagged := gengo.ExtractCommentTags("+", m.CommentLines)["optional"]
		typ, structs := typeDoc(pkg, m.Type)
		out = append(out, model.FieldDoc{
			Name: m.Name, JSON: name, Optional: tagged || strings.Contains(opts, "omitempty"),
			Type: typ, Doc: docOf(m.CommentLines), Structs: structs,
		})
	}
	return out
}

// typeDoc describes a field's type, and the structs of pkg it refers to, which the reference
// documents too.
func typeDoc(pkg *types.Package, t *types.Type) (model.TypeDoc, []string) {
	switch t.Kind {
	case types.Pointer:
		return typeDoc(pkg, t.Elem)
	case types.Slice, types.Array:
		elem, next := typeDoc(pkg, t.Elem)
		if t.Elem.Name.Name == "byte" {
			return model.TypeDoc{Kind: model.TypeBytes}, nil
		}
		return model.TypeDoc{Kind: model.TypeSlice, Elem: &elem}, next
	case types.Map:
		elem, next := typeDoc(pkg, t.Elem)
		return model.TypeDoc{Kind: model.TypeMap, Elem: &elem}, next
	case types.Builtin:
		return model.TypeDoc{Kind: model.TypeBuiltin, Name: t.Name.Name}, nil
	}
	if t.Name.Package != pkg.Path {
		return model.TypeDoc{Kind: model.TypeExternal, Name: t.Name.Name, Package: t.Name.Package}, nil
	}
	if t.Kind == types.Struct {
		return model.TypeDoc{Kind: model.TypeStruct, Name: t.Name.Name}, []string{t.Name.Name}
	}
	// A named type of the package: its underlying type, and its values when it is an enum.
	under, _ := typeDoc(pkg, throughPointers(t))
	return model.TypeDoc{Kind: model.TypeNamed, Name: t.Name.Name, Elem: &under, Enum: enumValues(pkg, t)}, nil
}

// enumValues are the constants of an +enum type, sorted.
func enumValues(pkg *types.Package, t *types.Type) []string {
	if _, ok := gengo.ExtractCommentTags("+", t.CommentLines)["enum"]; !ok {
		return nil
	}
	var values []string
	for _, c := range pkg.Constants {
		if c.Underlying == t && c.ConstValue != nil {
			values = append(values, *c.ConstValue)
		}
	}
	slices.Sort(values)
	return values
}

// throughPointers follows pointers and aliases to the type they point to or stand for.
func throughPointers(t *types.Type) *types.Type {
	for {
		switch {
		case t.Kind == types.Pointer:
			t = t.Elem
		case t.Kind == types.Alias && t.Underlying != nil:
			t = t.Underlying
		default:
			return t
		}
	}
}

// docOf is a Go doc comment without its marker and tag lines, on one line.
func docOf(lines []string) string {
	var kept []string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "+") {
			continue
		}
		kept = append(kept, l)
	}
	return strings.Join(strings.Fields(strings.Join(kept, " ")), " ")
}
