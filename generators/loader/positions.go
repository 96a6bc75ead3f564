package loader

import (
	"go/token"
	gotypes "go/types"
	"path/filepath"
	"strings"

	"k8s.io/gengo/v2/types"
)

// MemberPos is where struct t's member name is declared, relative to the project root, when
// go/types knows it and it is inside the project (not in a dependency's struct).
func (r *Result) MemberPos(t *types.Type, name string) (token.Position, bool) {
	if t.GoType == nil {
		return token.Position{}, false
	}
	st, ok := t.GoType.Underlying().(*gotypes.Struct)
	if !ok {
		return token.Position{}, false
	}
	for f := range st.Fields() {
		if f.Name() != name || !f.Pos().IsValid() {
			continue
		}
		pos := r.Fset.Position(f.Pos())
		rel, err := filepath.Rel(r.Root, pos.Filename)
		if pos.Filename == "" || err != nil {
			return token.Position{}, false
		}
		rel = filepath.ToSlash(rel)
		if rel == ".." || strings.HasPrefix(rel, "../") {
			return token.Position{}, false
		}
		pos.Filename = rel
		return pos, true
	}
	return token.Position{}, false
}
