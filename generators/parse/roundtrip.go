package parse

import (
	"go/token"
	"maps"
	"reflect"
	"slices"

	"k8s.io/gengo/v2/namer"
	gengotypes "k8s.io/gengo/v2/types"

	"github.com/apigen-dev/apigen/generators/loader"
	"github.com/apigen-dev/apigen/generators/model"
	"github.com/apigen-dev/apigen/internal/jsonview"
)

// rawJSON is apiextensions' JSON, raw JSON that kubebuilder APIs hold free-form values in.
var rawJSON = gengotypes.Name{Package: "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1", Name: "JSON"}

// fillsRawJSON reports whether the group's types reach rawJSON, which the generated round-trip
// test must fill with valid JSON (Group.FillsRawJSON).
func (p *parser_) fillsRawJSON(g *model.Group) bool {
	var roots []string
	for _, v := range g.Versions {
		roots = append(roots, v.Package)
	}
	if g.Internal != nil {
		roots = append(roots, g.Internal.Package)
	}
	for t := range loader.ReferencedTypes(p.load.Universe, roots) {
		if t.Name == rawJSON {
			return true
		}
	}
	return false
}

// nullPointers are the members of the package's exported structs that point to a map or a
// slice (velero's DataUploadStatus.DataMoverResult *map[string]string): one pointing to a nil
// map or slice encodes as null, which decodes as a nil pointer, so the generated round-trip
// test sets such a pointer to nil, as it does an inlined pointer to an empty struct
// (HiddenField.EmptyBecomesNil); sorted by type.
func nullPointers(pkg *gengotypes.Package, declPos map[string]token.Position) []model.HiddenField {
	var out []model.HiddenField
	for _, name := range slices.Sorted(maps.Keys(pkg.Types)) {
		t := pkg.Types[name]
		if t.Kind != gengotypes.Struct || namer.IsPrivateGoName(name) {
			continue
		}
		for _, m := range t.Members {
			if jsonview.Inlined(&m) || namer.IsPrivateGoName(m.Name) || reflect.StructTag(m.Tags).Get("json") == "-" || !pointsToContainer(m.Type) {
				continue
			}
			out = append(out, model.HiddenField{
				Type: name, Go: []model.FieldStep{{Name: m.Name, Pointer: true}}, EmptyBecomesNil: true, Pos: declPos[name],
			})
		}
	}
	return out
}

// pointsToContainer reports whether t is a pointer to a map or a slice, named or not.
func pointsToContainer(t *gengotypes.Type) bool {
	if t.Kind != gengotypes.Pointer {
		return false
	}
	elem := underlying(t.Elem)
	return elem.Kind == gengotypes.Map || elem.Kind == gengotypes.Slice
}
