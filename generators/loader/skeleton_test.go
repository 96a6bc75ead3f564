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
// declarations (with what dropBodies drops dropped) and the same comment groups, at the same positions (gengo
// finds a declaration's comments by the line a group ends on).
func TestSkeleton(t *testing.T) {
	if testing.Short() {
		t.Skip("loads from source, as TestLoad does in -short mode, then parses every file twice")
	}
	r, err := Run("testdata/project", Options{})
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
	dropBodies(f)
	for _, d := range f.Decls {
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

// TestSkeletonLiterals checks the composite literals of package-level variables that skeleton
// reduces, and those it leaves whole, against the parse of the source.
func TestSkeletonLiterals(t *testing.T) {
	for _, tc := range []struct {
		src     string
		reduced bool // whether the skeleton differs from the source
	}{
		{"var x = []int{1, 2, 3}\n", true},
		{"var x = &pkg.T{\n\tA: 1, // one\n\t// two\n\tB: \"}\",\n}\n", true},
		{"var (\n\ta = map[string][]*T{\n\t\t\"a\": {{1}, {2}},\n\t\t/* c */ \"b\": nil}\n\tb, c = 1, T[int]{x}\n)\n", true},
		{"var x = [...]int{1, 2, 3}\n", true},
		{"var x = [...]int{1, 2, 3,\n}\n", true},
		{"var x = [...]T{\n\t// a\n\t{1, 2}, {3, \"4\"}, /* b */ 'c', // d\n\n\t// e\n\tf(g),\n}\n", true},
		{"var x = [...]int{1: 1, 2}\n", false}, // keyed: the elements are kept
		{"var x = [...]T{{1,\n\t2}}\n", false}, // an element on two lines
		{"var x = [...]T{1 /* c */, 2}\n", false},
		{"var x = [2][...]T{}\n", false},
		{"var x = [ ... ]int{1, 2}\n", false},
		{"var x = [/* n */ ...]int{1, 2}\n", false},
		{"var x = struct{ A int }{A: 1}\n", false},
		{"var x = *T{}\n", false},
		{"var x = f(T{1})\n", false},
		{"var x = T{1}.f()\n", false},
		{"var x = T{\n\t1,\n} // c\nvar y, z = T{1}, U{2}\n", true},
		{"var x = T{\n\t`a\nb`,\n}\n", false},
		{"var x = []T{{\n\t1}}\n", false}, // a { alone ends its line
		{"const x = 1\ntype y = z\nvar x = T{a, /* c */ b}\n", true},
		{"func f() {\n\tvar x = T{1}\n}\nvar y = [2]T{1}\n", true},
		{"var x = T{1, /* c */\n\t2}\n", true},
		{"var x = T{1, 2 /* c */,\n}\n", false}, // a run of one byte before a comment
	} {
		src := []byte("package p\n\n" + tc.src)
		skel := skeleton(src)
		if len(skel) != len(src) {
			t.Errorf("%q: the skeleton has another length", tc.src)
			continue
		}
		if got := !bytes.Equal(skel, src); got != tc.reduced {
			t.Errorf("%q: reduced %v, want %v:\n%s", tc.src, got, tc.reduced, skel)
		}
		const mode = goparser.ParseComments | goparser.SkipObjectResolution
		fset := token.NewFileSet()
		full, err := goparser.ParseFile(fset, "a.go", src, mode)
		if err != nil {
			t.Fatal(err)
		}
		sf, err := goparser.ParseFile(token.NewFileSet(), "a.go", skel, mode)
		if err != nil {
			t.Errorf("%q: the skeleton does not parse: %v\n%s", tc.src, err, skel)
			continue
		}
		if got, want := declarations(t, fset, sf), declarations(t, fset, full); got != want {
			t.Errorf("%q: declarations differ:\n%s\nwant:\n%s", tc.src, got, want)
		}
		if got, want := comments(sf), comments(full); got != want {
			t.Errorf("%q: comment groups differ:\n%s\nwant:\n%s", tc.src, got, want)
		}
	}
}
