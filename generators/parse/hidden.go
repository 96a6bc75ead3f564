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
// that encoding/json never encodes (jsonview.Hidden), and the inlined pointers an empty struct
// of which comes back nil (jsonview.InlinedPointers), sorted by type.
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
		for _, chain := range jsonview.InlinedPointers(t) {
			out = append(out, field(chain, true))
		}
	}
	return out
}
