package parse

import (
	"fmt"
	"go/ast"
	"go/token"
	"slices"

	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/model"
)

// packageMarkers returns the markers of the comments above each file's package clause: the
// package doc comment and whatever precedes it (a license, "scaffolded by apigen").
func (p *parser_) packageMarkers(files []*ast.File) []*markers.Marker {
	var out []*markers.Marker
	for _, f := range files {
		for _, cg := range f.Comments {
			if cg.End() > f.Package {
				break
			}
			out = append(out, p.markersIn(cg, markers.Package)...)
		}
	}
	return out
}

// markersIn parses every marker line of a comment group, recording errors.
func (p *parser_) markersIn(cg *ast.CommentGroup, target markers.Target) []*markers.Marker {
	if cg == nil {
		return nil
	}
	var out []*markers.Marker
	for _, c := range cg.List {
		m, err := p.reg.Parse(c.Text, target, p.pos(c.Slash))
		if err != nil {
			e := err.(*markers.Error)
			p.errs.Add(e.Pos, "%s", e.Msg)
			continue
		}
		if m == nil {
			continue
		}
		if m.Def.NoEffect != "" {
			p.noEffect(m)
		}
		out = append(out, m)
	}
	return out
}

// Warn records a marker's warning (markers.Warner).
func (p *parser_) Warn(pos token.Position, format string, args ...any) {
	p.warned.Add(pos, "warning: "+format, args...)
}

// noEffect records a marker that is accepted but changes nothing, once per marker name, with
// its first position and how often it appears.
func (p *parser_) noEffect(m *markers.Marker) {
	name := m.Written()
	use, ok := p.noEffects[name]
	if !ok {
		use = &noEffectUse{first: m.Pos, why: m.Def.NoEffect}
		p.noEffects[name] = use
	}
	use.count++
}

// noEffectUse is how a marker without effect is used in the project.
type noEffectUse struct {
	first token.Position
	why   string
	count int
}

// warnings are the run's warnings: one per marker that has no effect, and what markers
// reported through their kind.
func (p *parser_) warnings() model.ErrorList {
	out := slices.Clone(p.warned)
	for name, use := range p.noEffects {
		places := ""
		switch {
		case use.count == 2:
			places = " (here and in 1 more place)"
		case use.count > 2:
			places = fmt.Sprintf(" (here and in %d more places)", use.count-1)
		}
		out.Add(use.first, "warning: +%s has no effect: %s%s", name, use.why, places)
	}
	if err := out.Err(); err != nil {
		return err.(model.ErrorList)
	}
	return nil
}

// typeComments returns the comment groups whose markers apply to a type, as gengo's parser
// finds a type's CommentLines and SecondClosestCommentLines: the block ending on the line above
// the type's name, and the block ending two lines above that one (or above the name, when
// there is no first block), that is, separated from it by one blank line (where +genclient
// and +k8s: tags usually are in k8s.io/api).
func typeComments(endLines map[int]*ast.CommentGroup, fset *token.FileSet, spec *ast.TypeSpec) []*ast.CommentGroup {
	line := fset.Position(spec.Name.Pos()).Line
	closest := endLines[line-1]
	above := line
	if closest != nil {
		above = fset.Position(closest.Pos()).Line
	}
	var out []*ast.CommentGroup
	if second := endLines[above-2]; second != nil {
		out = append(out, second)
	}
	if closest != nil {
		out = append(out, closest)
	}
	return out
}

// commentEndLines maps each line of a file on which a comment group ends to that group.
func commentEndLines(f *ast.File, fset *token.FileSet) map[int]*ast.CommentGroup {
	out := map[int]*ast.CommentGroup{}
	for _, cg := range f.Comments {
		out[fset.Position(cg.End()).Line] = cg
	}
	return out
}
