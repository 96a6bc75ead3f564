package engine

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/tools/imports"
)

// goimports is what FormatGo must equal: goimports' formatting alone.
func goimports(src []byte) ([]byte, error) {
	return imports.Process("x.go", src, &imports.Options{FormatOnly: true, Comments: true, TabIndent: true, TabWidth: 8})
}

// TestFormatGoAsGoimports checks that FormatGo's faster path gives goimports' bytes: on every
// Go file of the repository's test data and examples as it is, with its import lines shuffled
// into one run, and with every line's indentation taken away; and on import blocks made up at
// random (groups, names, duplicates, blank lines).
func TestFormatGoAsGoimports(t *testing.T) {
	var files []string
	for _, dir := range []string{"../../testdata", "../../examples"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") {
				files = append(files, path)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(files) < 100 {
		t.Fatalf("only %d Go files found", len(files))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	fast := 0
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for variant, in := range map[string][]byte{
			"as is":         src,
			"shuffled":      shuffleImports(rng, src),
			"not indented":  regexp.MustCompile(`(?m)^[ \t]+`).ReplaceAll(src, nil),
			"shuffled flat": regexp.MustCompile(`(?m)^[ \t]+`).ReplaceAll(shuffleImports(rng, src), nil),
		} {
			if _, ok := groupImports(in); ok {
				fast++
			}
			compareWithGoimports(t, path+" ("+variant+")", in)
		}
	}
	for i := range 2000 {
		compareWithGoimports(t, fmt.Sprintf("random import block %d", i), randomImports(rng))
	}
	if fast < len(files) {
		t.Errorf("the faster path was taken %d times for %d files", fast, len(files))
	}
}

func compareWithGoimports(t *testing.T, name string, src []byte) {
	t.Helper()
	want, wantErr := goimports(src)
	got, err := FormatGo("x.go", src)
	if (err != nil) != (wantErr != nil) {
		t.Errorf("%s: FormatGo error %v, goimports error %v", name, err, wantErr)
		return
	}
	if err == nil && !bytes.Equal(got, want) {
		t.Errorf("%s: FormatGo differs from goimports:\n--- input\n%s\n--- FormatGo\n%s\n--- goimports\n%s", name, src, got, want)
	}
}

// shuffleImports puts the lines of src's first parenthesized import block in a random order,
// dropping its blank lines.
func shuffleImports(rng *rand.Rand, src []byte) []byte {
	lines := strings.Split(string(src), "\n")
	start := -1
	for i, l := range lines {
		if start < 0 && l == "import (" {
			start = i + 1
		} else if start >= 0 && l == ")" {
			var block []string
			for _, b := range lines[start:i] {
				if strings.TrimSpace(b) != "" {
					block = append(block, b)
				}
			}
			rng.Shuffle(len(block), func(i, j int) { block[i], block[j] = block[j], block[i] })
			return []byte(strings.Join(append(append(append([]string{}, lines[:start]...), block...), lines[i:]...), "\n"))
		}
	}
	return src
}

// randomImports is a small file whose import block is made up at random.
func randomImports(rng *rand.Rand) []byte {
	paths := []string{"fmt", "context", "net/http", "k8s.io/api/core/v1", "k8s.io/apimachinery/pkg/runtime",
		"github.com/a/b", "appengine", "appengine/datastore", "example.com/x", "sort", "a.b/c"}
	names := []string{"", "", "", "v1", "_", ".", "x"}
	var b strings.Builder
	b.WriteString("// header\n\npackage p\n\n")
	n := rng.IntN(8)
	if n == 1 && rng.IntN(2) == 0 {
		fmt.Fprintf(&b, "import %q\n", paths[rng.IntN(len(paths))])
	} else if n > 0 {
		b.WriteString("import (\n")
		for range n {
			if rng.IntN(5) == 0 {
				b.WriteString("\n")
			}
			if name := names[rng.IntN(len(names))]; name != "" {
				b.WriteString(name + " ")
			}
			fmt.Fprintf(&b, "%s%q\n", strings.Repeat("\t", rng.IntN(2)), paths[rng.IntN(len(paths))])
		}
		b.WriteString(")\n")
	}
	b.WriteString("\nvar   X = 0X1P4\n\nfunc f() {\nreturn\n}\n")
	return []byte(b.String())
}
