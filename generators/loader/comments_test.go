package loader

import (
	"go/build"
	goparser "go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestScanComments: scanComments gives a file's comment groups as gengo indexes them after
// go/parser's parse (the same groups, each by the file and line it ends on, with the same
// texts), over literal cases and every file of the standard library's packages whose comments
// loads scan (stdSeed's Comments) or parse (its Source).
func TestScanComments(t *testing.T) {
	check := func(name string, src []byte) {
		t.Helper()
		fset := token.NewFileSet()
		f, err := goparser.ParseFile(fset, name, src, goparser.ParseComments|goparser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var want []commentGroup
		for _, c := range f.Comments {
			g := commentGroup{}
			g.File, g.Line = commentKey(fset, c)
			for _, cm := range c.List {
				g.Texts = append(g.Texts, cm.Text)
			}
			want = append(want, g)
		}
		got, ok := scanComments(name, src)
		if !ok {
			t.Errorf("%s: does not scan", name)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: comment groups differ (-parsed +scanned):\n%s", name, diff)
		}
	}
	for i, src := range []string{
		"package p // c\n",
		"// a\n\n// b\n/* c */\npackage p\n",
		"package p\n\n// a\n// b\n\n// c\ntype T struct {\n\tA int // a\n\t// b\n\tB int /* c\n d */\n\tC int\n}\n",
		"package p\nvar x = 1 /* a */ // b\n// c\n",
		"package p\n/* a\n*/ /* b */\n// c\nfunc f() {}\n// end",
		"package p\r\n/* a\r\nb */\r\n// c\r\nvar x int // d\r\n\r\n// e\r\n",
		"package p\nfunc f() { /* a */ }\n// b\nvar y = `x\n// not\n`\n",
		"package p\nvar x = []int{\n\t1, // a\n\t// b\n\n\t// c\n}\n",
		"package p\nfunc f() {\n\tx := 1 /* a\n\t*/ + 2 // b\n\t/* c */ y() // d\n}\n",
		"package p\n\nimport (\n\t\"a\" // a\n\t/* b */ \"b\"\n)\n\ntype I interface {\n\t// M\n\tM() /* m */\n\t// N\n\tN()\n}\n",
	} {
		check(filepath.Join("testdata", string(rune('a'+i))+".go"), []byte(src))
	}
	if _, ok := scanComments("a.go", []byte("package p\n//line b.go:10\nvar x int\n")); ok {
		t.Error("a file with a line directive scans")
	}
	if _, ok := scanComments("a.go", []byte("package p\nvar x = \"a\n")); ok {
		t.Error("a file with a scan error scans")
	}

	n := 0
	for _, path := range slices.Concat(stdSeed.Source, stdSeed.Comments) {
		dir := filepath.Join(build.Default.GOROOT, "src", filepath.FromSlash(path))
		names, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			check(name, src)
			n++
		}
	}
	if n < 200 {
		t.Errorf("only %d files of the standard library checked", n)
	}
}
