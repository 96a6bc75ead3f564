package loader

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestCgoDependency: a project whose API types refer to a package that uses cgo loads as
// gengo's own load does: the package is checked from what cgo makes of its files (found as
// it is parsed, then loaded again with go list's compiled files), and so are the standard
// library's cgo packages when nothing comes from export data.
func TestCgoDependency(t *testing.T) {
	if !cgoOn(t) {
		t.Skip("cgo is off: internal/native builds without it")
	}
	if testing.Short() {
		t.Skip("type-checks the standard library from source")
	}
	own, err := Run("testdata/cgo", Options{FromSource: true, GengoLoadsItself: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		cache *StdCache
	}{
		{"no std cache", nil},
		{"std cache", &StdCache{Dir: t.TempDir(), Identity: "TestCgoDependency"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := Run("testdata/cgo", Options{StdCache: c.cache})
			if err != nil {
				t.Fatal(err)
			}
			var roots []*packages.Package
			for _, p := range r.packages {
				roots = append(roots, p.Package)
			}
			var native *packages.Package
			packages.Visit(roots, nil, func(p *packages.Package) {
				if p.PkgPath == "example.com/cgo/internal/native" {
					native = p
				}
			})
			if native == nil {
				t.Fatal("example.com/cgo/internal/native is not in the graph")
			}
			if len(cgoOutput(native)) == 0 || usesCgo(native.Syntax) {
				t.Errorf("internal/native was checked from its Go files %q, not cgo's", native.CompiledGoFiles)
			}
			compareUniverses(t, "with a cgo dependency", own.Universe, r.Universe)
			if abs, _ := filepath.Abs("testdata/cgo"); c.cache != nil && !c.cache.listsCompiled(abs) {
				t.Error("the project's next loads will list no compiled files, and be done twice")
			}
			if abs, _ := filepath.Abs("testdata/project"); c.cache.listsCompiled(abs) {
				t.Error("another project's loads will list compiled files")
			}
		})
	}
}

// cgoOutput are the files of p's compiled files that cgo wrote (they have no extension).
func cgoOutput(p *packages.Package) []string {
	var out []string
	for _, name := range p.CompiledGoFiles {
		if filepath.Ext(name) == "" {
			out = append(out, name)
		}
	}
	return out
}

func cgoOn(t *testing.T) bool {
	t.Helper()
	out, err := exec.Command("go", "env", "CGO_ENABLED").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out)) == "1"
}
