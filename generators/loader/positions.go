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
		rel, ok := InRoot(r.Root, pos.Filename)
		if !ok {
			return token.Position{}, false
		}
		pos.Filename = rel
		return pos, true
	}
	return token.Position{}, false
}

// InRoot is file's path relative to root, with forward slashes, when file is root or inside
// it; a relative file is taken as relative to root. Positions inside the project print
// relative to it, and those in dependencies keep their absolute path.
func InRoot(root, file string) (string, bool) {
	if file == "" {
		return "", false
	}
	abs := filepath.FromSlash(file)
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(root, abs)
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}
