package kube

import (
	"slices"
	"strings"

	"k8s.io/gengo/v2"
	"k8s.io/gengo/v2/types"
)

// tagEdits adds +k8s: tags to the comments gengo keeps for packages and types, and takes
// them away again: users never write the upstream generators' tags, and the universe is
// shared, so a generator's tags must not outlive its run.
type tagEdits struct {
	undo []func()
}

// addPackageTag adds "+name=value" to a package's comments (where gengo keeps the tags of
// doc.go) unless the package already has a +name tag, whatever its value.
func (e *tagEdits) addPackageTag(pkg *types.Package, name, value string) {
	if hasTag(pkg.Comments, name) {
		return
	}
	old := pkg.Comments
	pkg.Comments = append(slices.Clip(old), "+"+name+"="+value)
	e.undo = append(e.undo, func() { pkg.Comments = old })
}

// addPackageTagValues adds one "+name=value" line per value to a package's comments unless the
// package already has a +name tag, which is then honoured as it is.
func (e *tagEdits) addPackageTagValues(pkg *types.Package, name string, values ...string) {
	if hasTag(pkg.Comments, name) {
		return
	}
	old := pkg.Comments
	pkg.Comments = slices.Clip(old)
	for _, v := range values {
		pkg.Comments = append(pkg.Comments, "+"+name+"="+v)
	}
	e.undo = append(e.undo, func() { pkg.Comments = old })
}

// addMemberTag adds "+name=value" to the comments of a struct member unless it has a +name
// tag already.
func (e *tagEdits) addMemberTag(t *types.Type, member, name, value string) {
	for i := range t.Members {
		m := &t.Members[i]
		if m.Name != member || hasTag(m.CommentLines, name) {
			continue
		}
		old := m.CommentLines
		m.CommentLines = append(slices.Clip(old), "+"+name+"="+value)
		e.undo = append(e.undo, func() { m.CommentLines = old })
	}
}

// addMemberLines adds comment lines (whole tags, such as "+optional") to a struct member's
// comments.
func (e *tagEdits) addMemberLines(t *types.Type, member string, lines ...string) {
	for i := range t.Members {
		m := &t.Members[i]
		if m.Name != member {
			continue
		}
		old := m.CommentLines
		m.CommentLines = append(slices.Clip(old), lines...)
		e.undo = append(e.undo, func() { m.CommentLines = old })
	}
}

// setMemberTag makes "+name=value" the only +name line of a struct member's comments, or
// takes every +name line out when value is empty.
func (e *tagEdits) setMemberTag(t *types.Type, member, name, value string) {
	e.removeMemberTag(t, member, name)
	if value != "" {
		e.addMemberTag(t, member, name, value)
	}
}

// removeMemberTag takes every "+name=..." line out of the comments of a struct member.
func (e *tagEdits) removeMemberTag(t *types.Type, member, name string) {
	for i := range t.Members {
		m := &t.Members[i]
		if m.Name != member || !hasTag(m.CommentLines, name) {
			continue
		}
		old := m.CommentLines
		m.CommentLines = slices.DeleteFunc(slices.Clone(old), func(line string) bool {
			return len(tagValues([]string{line}, name)) > 0
		})
		e.undo = append(e.undo, func() { m.CommentLines = old })
	}
}

// removePackageTag takes every "+name=value" line out of a package's comments.
func (e *tagEdits) removePackageTag(pkg *types.Package, name, value string) {
	old := pkg.Comments
	kept := slices.DeleteFunc(slices.Clone(old), func(line string) bool {
		return slices.Contains(tagValues([]string{line}, name), value)
	})
	if len(kept) == len(old) {
		return
	}
	pkg.Comments = kept
	e.undo = append(e.undo, func() { pkg.Comments = old })
}

// addTypeTag adds "+name=value" to a type's doc comment unless one of its comments already
// lists value for +name (values may be comma-separated, as for
// +k8s:deepcopy-gen:interfaces).
func (e *tagEdits) addTypeTag(t *types.Type, name, value string) {
	for _, v := range tagValues(typeComments(t), name) {
		if slices.Contains(strings.Split(v, ","), value) {
			return
		}
	}
	old := t.CommentLines
	t.CommentLines = append(slices.Clip(old), "+"+name+"="+value)
	e.undo = append(e.undo, func() { t.CommentLines = old })
}

// addTypeLines adds comment lines (whole tags, such as "+genclient") to a type's doc comment.
func (e *tagEdits) addTypeLines(t *types.Type, lines ...string) {
	old := t.CommentLines
	t.CommentLines = append(slices.Clip(old), lines...)
	e.undo = append(e.undo, func() { t.CommentLines = old })
}

// removeTypeLines takes the comment lines drop selects out of a type's tag blocks (the doc
// comment and the block above it, where k8s.io/api keeps +genclient).
func (e *tagEdits) removeTypeLines(t *types.Type, drop func(line string) bool) {
	oldDoc, oldAbove := t.CommentLines, t.SecondClosestCommentLines
	doc := slices.DeleteFunc(slices.Clone(oldDoc), drop)
	above := slices.DeleteFunc(slices.Clone(oldAbove), drop)
	if len(doc) == len(oldDoc) && len(above) == len(oldAbove) {
		return
	}
	t.CommentLines, t.SecondClosestCommentLines = doc, above
	e.undo = append(e.undo, func() { t.CommentLines, t.SecondClosestCommentLines = oldDoc, oldAbove })
}

// restore removes every tag added, newest first.
// setMembers gives struct t other members for the run (jsonview.View's, without the members
// encoding/json does not encode).
func (e *tagEdits) setMembers(t *types.Type, members []types.Member) {
	old := t.Members
	t.Members = members
	e.undo = append(e.undo, func() { t.Members = old })
}

func (e *tagEdits) restore() {
	for i := len(e.undo) - 1; i >= 0; i-- {
		e.undo[i]()
	}
	e.undo = nil
}

// typeComments are the comment lines the upstream generators read a type's tags from.
func typeComments(t *types.Type) []string {
	return append(slices.Clone(t.SecondClosestCommentLines), t.CommentLines...)
}

func hasTag(lines []string, name string) bool {
	_, ok := gengo.ExtractCommentTags("+", lines)[name]
	return ok
}

func tagValues(lines []string, name string) []string {
	return gengo.ExtractCommentTags("+", lines)[name]
}

// declareConversion declares in package pkg of the universe the conversion function
// func name(in *in, out *out, s conversion.Scope) error, as gengo's parser would read it from a
// file not yet written (a planned stub), so that conversion-gen takes it for the user's.
func (e *tagEdits) declareConversion(u types.Universe, pkg, name string, in, out types.Name) {
	p := u.Package(pkg)
	if _, ok := p.Functions[name]; ok {
		return
	}
	ptr := func(n types.Name) *types.Type {
		elem := u.Type(n)
		return &types.Type{Name: types.Name{Name: "*" + elem.Name.String()}, Kind: types.Pointer, Elem: elem}
	}
	scope := u.Type(types.Name{Package: "k8s.io/apimachinery/pkg/conversion", Name: "Scope"})
	fn := &types.Type{
		Name: types.Name{Package: pkg, Name: name},
		Kind: types.DeclarationOf,
		Underlying: &types.Type{Kind: types.Func, Signature: &types.Signature{
			Parameters: []*types.ParamResult{{Name: "in", Type: ptr(in)}, {Name: "out", Type: ptr(out)}, {Name: "s", Type: scope}},
			Results:    []*types.ParamResult{{Type: u.Type(types.Name{Name: "error"})}},
		}},
	}
	p.Functions[name] = fn
	e.undo = append(e.undo, func() { delete(p.Functions, name) })
}
