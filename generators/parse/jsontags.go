package parse

import (
	"go/ast"
	"reflect"
	"strconv"
	"strings"
	"unicode"

	"github.com/apigen-dev/apigen/generators/model"
)

// checkJSONTags reports every exported, non-embedded field without a JSON name in the
// resources' types and the local struct types they reach (Spec, Status and what they
// contain), and in their list types: encoding/json would serialize such a field under its Go
// name ("Replicas"), which is never what an API wants.
func (p *parser_) checkJSONTags(rs []*model.Resource, structs map[string]*ast.StructType) {
	seen := map[string]bool{}
	var walk func(name string)
	walkType := func(expr ast.Expr) {
		for {
			switch t := expr.(type) {
			case *ast.StarExpr:
				expr = t.X
				continue
			case *ast.ArrayType:
				expr = t.Elt
				continue
			case *ast.MapType:
				expr = t.Value
				continue
			case *ast.Ident:
				walk(t.Name)
			}
			return
		}
	}
	walk = func(name string) {
		st, ok := structs[name]
		if !ok || seen[name] {
			return
		}
		seen[name] = true
		for _, f := range st.Fields.List {
			walkType(f.Type)
			for _, n := range f.Names {
				if !n.IsExported() {
					continue
				}
				var tag string
				if f.Tag != nil {
					tag, _ = strconv.Unquote(f.Tag.Value)
				}
				jsonTag, ok := reflect.StructTag(tag).Lookup("json")
				jsonName, _, _ := strings.Cut(jsonTag, ",")
				switch {
				case jsonName == "-":
				case !ok:
					p.errs.Add(p.pos(n.Pos()), "field %s.%s has no json tag, so it would be serialized as %q; add `json:\"%s,omitempty\"` (or `json:\"-\"` to leave it out)", name, n.Name, n.Name, lowerFirst(n.Name))
				case jsonName == "":
					p.errs.Add(p.pos(n.Pos()), "field %s.%s has the json tag %q without a name, so it would be serialized as %q; write `json:\"%s%s\"`", name, n.Name, jsonTag, n.Name, lowerFirst(n.Name), jsonTag)
				}
			}
		}
	}
	for _, r := range rs {
		walk(r.Kind)
		walk(r.ListKind)
	}
}

// lowerFirst suggests a JSON name for a Go field name: "Replicas" → "replicas", "URL" → "url",
// "TLSConfig" → "tlsConfig".
func lowerFirst(s string) string {
	rs := []rune(s)
	i := 0
	for i < len(rs) && unicode.IsUpper(rs[i]) {
		i++
	}
	if i > 1 && i < len(rs) {
		i-- // keep the upper-case letter that starts the next word
	}
	for j := range i {
		rs[j] = unicode.ToLower(rs[j])
	}
	return string(rs)
}
