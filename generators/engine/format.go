package engine

import (
	"bytes"
	"cmp"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/imports"
)

// FormatGo formats generated Go source in memory (never by running gofmt, whose presence and
// version vary between machines). A formatting failure is a bug in a generator; the error
// carries the numbered source so it can be found, and nothing is written.
//
// It is goimports' formatting, which prints the file as gofmt does (go/format is its last
// step) and groups the standard library's imports apart from the others, as Kubernetes code is
// written. FormatOnly: imports are neither added nor removed.
//
// goimports parses and prints a file twice (its own printing, then go/format's). When the
// import block is plain enough to group the way goimports would (groupImports), the grouping
// is done on the text and go/format alone formats the result, parsing and printing once: the
// same bytes for half the work (TestFormatGoAsGoimports).
func FormatGo(name string, src []byte) ([]byte, error) {
	if grouped, ok := groupImports(src); ok {
		if out, err := format.Source(grouped); err == nil {
			return out, nil
		}
	}
	out, err := imports.Process(name, src, &imports.Options{FormatOnly: true, Comments: true, TabIndent: true, TabWidth: 8})
	if err != nil {
		return nil, fmt.Errorf("%s: generated Go does not format: %v\n%s", name, err, numbered(src))
	}
	return out, nil
}

// groupImports returns src with its import block as goimports (FormatOnly, no local prefix)
// leaves it before its final go/format pass: each run of imports on successive lines sorted
// by group (standard library, then paths whose first element has a dot; appengine apart) and
// path and name, with duplicates dropped and a blank line wherever the group changes. ok is
// false, and goimports must do it, for anything else: more than one import declaration, an
// empty one, comments in or beside it, cgo's "C", a path not in canonical quotes, a path in
// two runs, specs sharing a line, or blank lines at the block's ends.
func groupImports(src []byte) (grouped []byte, ok bool) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ImportsOnly|parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, false
	}
	switch len(f.Decls) { // ImportsOnly: the import declarations only
	case 0:
		return src, true
	case 1:
	default:
		return nil, false
	}
	d := f.Decls[0].(*ast.GenDecl)
	if len(d.Specs) == 0 {
		return nil, false
	}
	tf := fset.File(d.Pos())
	line := tf.Line
	for _, g := range f.Comments {
		if g.End() > d.Pos() && line(g.Pos()) <= line(d.End()) {
			return nil, false
		}
	}
	type spec struct {
		path, name string
		group      int
		text       []byte
		newRun     bool // a blank line before it
	}
	specs := make([]spec, 0, len(d.Specs))
	run := 0
	runOf := make(map[string]int, len(d.Specs)) // path -> its run
	for i, s := range d.Specs {
		s := s.(*ast.ImportSpec)
		p, err := strconv.Unquote(s.Path.Value)
		if err != nil || s.Path.Value != strconv.Quote(p) || p == "C" {
			return nil, false
		}
		sp := spec{path: p, group: importGroup(p), text: src[tf.Offset(s.Pos()):tf.Offset(s.End())]}
		if s.Name != nil {
			sp.name = s.Name.Name
		}
		if i > 0 {
			prev := line(d.Specs[i-1].End())
			if line(s.Pos()) <= prev {
				return nil, false
			}
			if sp.newRun = line(s.Pos()) > prev+1; sp.newRun {
				run++
			}
		}
		// goimports puts the blank line before a group by finding the group's first path in
		// its printed text, from the top: it lands elsewhere when the path is in an earlier run.
		if r, seen := runOf[p]; seen && r != run {
			return nil, false
		}
		runOf[p] = run
		specs = append(specs, sp)
	}
	if !d.Lparen.IsValid() {
		return src, true
	}
	if line(d.Specs[0].Pos()) != line(d.Lparen)+1 || line(d.Rparen) != line(d.Specs[len(d.Specs)-1].End())+1 {
		return nil, false
	}

	var b bytes.Buffer
	b.Grow(len(src) + 8)
	b.Write(src[:tf.Offset(d.Lparen)+1])
	b.WriteByte('\n')
	for start := 0; start < len(specs); {
		end := start + 1
		for end < len(specs) && !specs[end].newRun {
			end++
		}
		run := specs[start:end]
		if start > 0 {
			b.WriteByte('\n')
		}
		slices.SortFunc(run, func(x, y spec) int {
			return cmp.Or(cmp.Compare(x.group, y.group), strings.Compare(x.path, y.path), strings.Compare(x.name, y.name))
		})
		group := run[0].group
		for i, s := range run {
			if i+1 < len(run) && run[i+1].path == s.path && run[i+1].name == s.name {
				continue // a duplicate: goimports keeps one
			}
			if s.group != group {
				b.WriteByte('\n')
				group = s.group
			}
			b.WriteByte('\t')
			b.Write(s.text)
			b.WriteByte('\n')
		}
		start = end
	}
	b.Write(src[tf.Offset(d.Rparen):])
	return b.Bytes(), true
}

// importGroup is goimports' import group of a path with no local prefix: 0 for the standard
// library, 1 for a path whose first element has a dot, 2 for appengine's.
func importGroup(path string) int {
	if strings.HasPrefix(path, "appengine") {
		return 2
	}
	if first, _, _ := strings.Cut(path, "/"); strings.Contains(first, ".") {
		return 1
	}
	return 0
}

func numbered(src []byte) []byte {
	var b bytes.Buffer
	for i, line := range bytes.Split(src, []byte("\n")) {
		fmt.Fprintf(&b, "%5d\t%s\n", i+1, line)
	}
	return b.Bytes()
}
