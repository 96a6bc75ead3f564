package loader

import (
	"bytes"
	"fmt"
	"go/ast"
	goparser "go/parser"
	"go/printer"
	"go/token"
	"os"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestSkeleton parses every file of a load (the standard library and Kubernetes packages
// apigen's projects import) from its source and from its skeleton, and wants the same
// declarations (with bodies dropped) and the same comments outside function bodies, at the
// same positions; inside bodies, the same comments.
func TestSkeleton(t *testing.T) {
	r, err := Load("testdata/project")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	var roots []*packages.Package
	for _, p := range r.packages {
		roots = append(roots, p.Package)
	}
	packages.Visit(roots, nil, func(p *packages.Package) { files = append(files, p.CompiledGoFiles...) })
	if len(files) < 1000 {
		t.Fatalf("only %d files in the load", len(files))
	}
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		const mode = goparser.ParseComments | goparser.SkipObjectResolution
		full, err := goparser.ParseFile(token.NewFileSet(), name, src, mode)
		if err != nil {
			continue // not Go the loader parses either
		}
		fset := token.NewFileSet()
		skel, err := goparser.ParseFile(fset, name, skeleton(src), mode)
		if err != nil {
			t.Errorf("%s: the skeleton does not parse: %v", name, err)
			continue
		}
		var bodies [][2]token.Pos
		for _, d := range full.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Body != nil {
				bodies = append(bodies, [2]token.Pos{fn.Body.Lbrace, fn.Body.Rbrace})
			}
		}
		inBody := func(p token.Pos) bool {
			for _, b := range bodies {
				if b[0] < p && p < b[1] {
					return true
				}
			}
			return false
		}
		if got, want := declarations(t, fset, skel), declarations(t, fset, full); got != want {
			t.Errorf("%s: declarations differ", name)
			continue
		}
		if got, want := comments(skel, nil), comments(full, nil); got != want {
			if got, want := comments(skel, inBody), comments(full, inBody); got != want {
				t.Errorf("%s: comment groups outside bodies differ:\n%s\nwant:\n%s", name, got, want)
			}
		}
	}
}

func declarations(t *testing.T, fset *token.FileSet, f *ast.File) string {
	var b bytes.Buffer
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok {
			fn.Body = nil
		}
		if err := printer.Fprint(&b, fset, d); err != nil {
			t.Fatal(err)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// comments lists the comment groups (those inBody reports as in a body: each comment on its
// own) with their positions.
func comments(f *ast.File, inBody func(token.Pos) bool) string {
	var b bytes.Buffer
	for _, g := range f.Comments {
		if inBody != nil && inBody(g.Pos()) {
			for _, c := range g.List {
				fmt.Fprintf(&b, "%d %s\n", c.Slash, c.Text)
			}
			continue
		}
		fmt.Fprintf(&b, "%d-%d %q\n", g.Pos(), g.End(), g.Text())
	}
	return b.String()
}
