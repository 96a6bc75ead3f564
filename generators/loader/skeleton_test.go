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
// declarations (with bodies dropped) and the same comment groups, at the same positions (gengo
// finds a declaration's comments by the line a group ends on).
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
		if got, want := declarations(t, fset, skel), declarations(t, fset, full); got != want {
			t.Errorf("%s: declarations differ", name)
			continue
		}
		if got, want := comments(skel), comments(full); got != want {
			t.Errorf("%s: comment groups differ:\n%s\nwant:\n%s", name, got, want)
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

// comments lists the comment groups with their positions.
func comments(f *ast.File) string {
	var b bytes.Buffer
	for _, g := range f.Comments {
		fmt.Fprintf(&b, "%d-%d %q\n", g.Pos(), g.End(), g.Text())
	}
	return b.String()
}
