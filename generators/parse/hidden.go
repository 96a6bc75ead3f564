package parse

import (
	"go/token"
	"maps"
	"slices"

	"k8s.io/gengo/v2/namer"
	gengotypes "k8s.io/gengo/v2/types"

	"github.com/apigen-dev/apigen/generators/model"
	"github.com/apigen-dev/apigen/internal/jsonview"
)

// hiddenFields are the fields under the inlined members of the package's exported structs
// that encoding/json never encodes (jsonview.Hidden), sorted by type.
func hiddenFields(pkg *gengotypes.Package, declPos map[string]token.Position) []model.HiddenField {
	var out []model.HiddenField
	for _, name := range slices.Sorted(maps.Keys(pkg.Types)) {
		t := pkg.Types[name]
		if t.Kind != gengotypes.Struct || namer.IsPrivateGoName(name) {
			continue
		}
		field := func(chain []gengotypes.Member, emptyIsNil bool) model.HiddenField {
			f := model.HiddenField{Type: name, EmptyBecomesNil: emptyIsNil, Pos: declPos[name]}
			for _, m := range chain {
				f.Go = append(f.Go, model.FieldStep{Name: m.Name, Pointer: m.Type.Kind == gengotypes.Pointer})
			}
			return f
		}
		for _, chain := range jsonview.Hidden(t) {
			out = append(out, field(chain, false))
		}
		for _, chain := range inlinedPointers(t, nil, map[*gengotypes.Type]bool{t: true}) {
			out = append(out, field(chain, true))
		}
	}
	return out
}

// inlinedPointers are the paths to the pointers to structs that t inlines (directly or under
// inlined structs), inner ones first: an empty struct there encodes to no key at all, so it
// comes back nil.
func inlinedPointers(t *gengotypes.Type, prefix []gengotypes.Member, onPath map[*gengotypes.Type]bool) [][]gengotypes.Member {
	var out [][]gengotypes.Member
	for _, m := range t.Members {
		if !jsonview.Inlined(&m) {
			continue
		}
		inner := m.Type
		for inner.Kind == gengotypes.Pointer {
			inner = inner.Elem
		}
		if inner.Kind != gengotypes.Struct || onPath[inner] {
			continue
		}
		chain := append(slices.Clone(prefix), m)
		onPath[inner] = true
		// Inner pointers first: emptying them may leave an outer one empty.
		out = append(out, inlinedPointers(inner, chain, onPath)...)
		delete(onPath, inner)
		if m.Type.Kind == gengotypes.Pointer {
			out = append(out, chain)
		}
	}
	return out
}
