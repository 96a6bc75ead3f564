package parse

import (
	"fmt"
	"go/token"
	"maps"
	"slices"
	"strings"

	"k8s.io/gengo/v2/namer"
	gengotypes "k8s.io/gengo/v2/types"

	"github.com/apigen-dev/apigen/generators/model"
	"github.com/apigen-dev/apigen/internal/jsonview"
)

// hiddenFields are the fields under the inlined members of the package's exported structs
// that encoding/json never encodes (jsonview.Hidings), and the inlined pointers an empty struct
// of which comes back nil (jsonview.InlinedPointers), sorted by type. Each hidden field is
// recorded for hiddenFieldWarnings too.
func (p *parser_) hiddenFields(pkg *gengotypes.Package, declPos map[string]token.Position) []model.HiddenField {
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
		for _, h := range jsonview.Hidings(t) {
			out = append(out, field(h.Members, false))
			p.hidings = append(p.hidings, hidingIn{root: t, Hiding: h, pos: p.hiddenFieldPos(t, h.Members)})
		}
		for _, chain := range jsonview.InlinedPointers(t) {
			out = append(out, field(chain, true))
		}
	}
	return out
}

// hidingIn is a field hidden in the struct root (jsonview.Hiding), and where to report it.
type hidingIn struct {
	root *gengotypes.Type
	jsonview.Hiding
	pos token.Position
}

// hiddenFieldPos is where the hidden field at chain under root is declared, or, when that is
// outside the project (a dependency's struct the project inlines), the inlined member of root
// that leads to it.
func (p *parser_) hiddenFieldPos(root *gengotypes.Type, chain []gengotypes.Member) token.Position {
	parent := root
	for _, m := range chain[:len(chain)-1] {
		parent = derefPointer(m.Type)
	}
	if pos, ok := p.load.MemberPos(parent, chain[len(chain)-1].Name); ok {
		return pos
	}
	pos, _ := p.load.MemberPos(root, chain[0].Name)
	return pos
}

// hiddenFieldWarnings warns once at each hidden field's declaration, however many structs
// and versions inline it: what hides it, in the struct where the path to it is shortest (where
// the conflict arises), and the other structs it is hidden in.
func (p *parser_) hiddenFieldWarnings() {
	byPos := map[token.Position][]hidingIn{}
	for _, h := range p.hidings {
		byPos[h.pos] = append(byPos[h.pos], h)
	}
	for pos, hs := range byPos {
		slices.SortStableFunc(hs, func(a, b hidingIn) int {
			if d := len(a.Members) - len(b.Members); d != 0 {
				return d
			}
			return strings.Compare(a.root.Name.Name, b.root.Name.Name)
		})
		h := hs[0]
		msg := hidingMessage(h)
		var also []string
		for _, o := range hs[1:] {
			if n := o.root.Name.Name; n != h.root.Name.Name && !slices.Contains(also, n) {
				also = append(also, n)
			}
		}
		if len(also) > 0 {
			msg += "; likewise in " + strings.Join(also, ", ")
		}
		p.Warn(pos, "%s", msg)
	}
}

// hidingMessage says what hides h's field in h.root, naming the fields by their Go paths
// from the root.
func hidingMessage(h hidingIn) string {
	root := h.root.Name.Name
	path := func(chain []gengotypes.Member) string {
		names := []string{root}
		for _, m := range chain {
			names = append(names, m.Name)
		}
		return strings.Join(names, ".")
	}
	declaring := root
	if len(h.Members) > 1 {
		declaring = derefPointer(h.Members[len(h.Members)-2].Type).Name.Name
	}
	field := declaring + "." + h.Members[len(h.Members)-1].Name
	head := fmt.Sprintf("%s never reaches JSON in %s: as %s it has the JSON name %q", field, root, path(h.Members), h.Name)
	switch {
	case h.By != nil && len(h.By) < len(h.Members):
		return fmt.Sprintf("%s of %s, which is shallower, and encoding/json encodes only the shallowest field of a name", head, path(h.By))
	case h.By != nil:
		return fmt.Sprintf("%s of %s at the same depth, whose JSON tag names it, and encoding/json then encodes only the tagged field", head, path(h.By))
	}
	var rivals []string
	for _, r := range h.Rivals {
		rivals = append(rivals, path(r))
	}
	if len(h.Rivals) > 0 && len(h.Rivals[0]) < len(h.Members) {
		return fmt.Sprintf("%s of %s, which are shallower and tie, and encoding/json encodes none of them and no deeper field", head, strings.Join(rivals, " and "))
	}
	which := "neither"
	if len(rivals) > 1 {
		which = "none of them"
	}
	return fmt.Sprintf("%s of %s at the same depth, and encoding/json encodes %s", head, strings.Join(rivals, " and "), which)
}
