package loader

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestLoadListsNoCompiledFiles: the load's go list works out no compiled files
// (notCompiled): with the standard library's types from export data, net, a cgo package, is
// listed with its Go files, not with what cgo makes of them.
func TestLoadListsNoCompiledFiles(t *testing.T) {
	if !cgoOn(t) {
		t.Skip("cgo is off: net's compiled files are its Go files anyway")
	}
	cache := &StdCache{Dir: t.TempDir(), Identity: "TestLoadListsNoCompiledFiles"}
	r, err := Run("testdata/project", Options{StdCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	net := r.std.std["net"]
	if net == nil {
		t.Fatal("net is not in testdata/project's graph")
	}
	if !slices.Equal(net.CompiledGoFiles, net.GoFiles) {
		t.Errorf("net, from export data, was listed with compiled files %q", cgoOutput(net))
	}
	if len(net.Syntax) > 0 {
		t.Errorf("net was checked from source (no export data in the go build cache?)")
	}
	// A load that lists the compiled files (from source here) stamps net as this one does,
	// so that the two kinds of load agree on the std cache's entry.
	compiled, err := Run("testdata/project", Options{StdCache: cache, FromSource: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(compiled.std.stamps["net"], r.std.stamps["net"]) || len(r.std.stamps["net"]) == 0 {
		t.Errorf("net's files as the std cache stamps them differ between a load with compiled files and one without:\n%v\n%v", compiled.std.stamps["net"], r.std.stamps["net"])
	}
}

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
