package loader

import (
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/gengo/v2/types"
	"k8s.io/klog/v2"
)

// TestUniverseEquivalence builds gengo's universe the way gengo builds it when it loads the
// packages itself (every dependency parsed and type-checked in full) and the way apigen builds
// it (feedParser: the run's one load, dependencies without function bodies, the standard
// library from the go build cache's export data as pipeline.Run reads it), for every project
// apigen's tests generate from, and wants the same universe: every package, type, member, tag,
// comment, method, function, variable and constant. It compares the universe as Run leaves
// it, and for the examples, where every dependency of the other fixtures is loaded too, again
// after every package of the load is fully processed (what any generator's LoadPackages could
// ask for; from source, since that reads every standard library package there is more of
// than its types).
func TestUniverseEquivalence(t *testing.T) {
	if testing.Short() {
		t.Skip("loads every fixture twice")
	}
	// gengo warns about the standard library's type aliases with other comments (both ways).
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	defer klog.LogToStderr(true)
	cache := &StdCache{Dir: t.TempDir(), Identity: "TestUniverseEquivalence"}
	fromExport := 0
	for _, dir := range fixtureProjects(t) {
		t.Run(strings.ReplaceAll(dir, "/", "_"), func(t *testing.T) {
			root := dir
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
				root = t.TempDir()
				copyFixture(t, dir, root)
			}
			fed, fedErr := loadAsRun(t, root, cache)
			if fedErr == nil {
				fromExport += len(fed.std.fromExport)
			}
			own, ownErr := Run(root, Options{FromSource: true, GengoLoadsItself: true})
			if (fedErr == nil) != (ownErr == nil) || fedErr != nil && fedErr.Error() != ownErr.Error() {
				t.Fatalf("Run errors differ:\nfed:  %v\nown:  %v", fedErr, ownErr)
			}
			if fedErr != nil {
				return // a fixture that does not load (a syntax error): both say the same
			}
			compareUniverses(t, "after Run", own.Universe, fed.Universe)
			if diff := cmp.Diff(own.TypeErrors.Error(), fed.TypeErrors.Error()); diff != "" {
				t.Errorf("type errors differ (-gengo's own load +apigen's):\n%s", diff)
			}
			if !strings.HasPrefix(dir, "../../examples/") {
				return
			}
			all := slices.Sorted(maps.Keys(own.Universe))
			all = slices.DeleteFunc(all, func(p string) bool { return p == "" || own.Universe[p].Dir == "" })
			if err := own.Require(all...); err != nil {
				t.Fatal(err)
			}
			fed, err := Run(root, Options{StdCache: cache, FromSource: true})
			if err != nil {
				t.Fatal(err)
			}
			if err := fed.Require(all...); err != nil {
				t.Fatal(err)
			}
			compareUniverses(t, "with every package processed", own.Universe, fed.Universe)
		})
	}
	if fromExport == 0 {
		t.Error("no load read a standard library package from the std cache")
	}
}

// loadAsRun loads root as pipeline.Run does with a std cache: Run, and when the universe read
// a package that came from export data, a load from source.
func loadAsRun(t *testing.T, root string, cache *StdCache) (*Result, error) {
	t.Helper()
	r, err := Run(root, Options{StdCache: cache})
	if err != nil {
		return nil, err
	}
	if touched := r.StdTouched(); len(touched) > 0 {
		t.Logf("load again from source: the universe read %q", touched)
		if r, err = Run(root, Options{StdCache: cache, FromSource: true}); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func compareUniverses(t *testing.T, when string, own, fed types.Universe) {
	t.Helper()
	want, got := dumpUniverse(own), dumpUniverse(fed)
	if slices.Equal(want, got) {
		return
	}
	t.Fatalf("universes differ %s (-gengo's own load +apigen's):\n%s", when, cmp.Diff(want, got))
}

// fixtureProjects are the projects apigen's tests load: the examples, the model, build and
// error fixtures, and the loader's and generators' own test projects.
func fixtureProjects(t *testing.T) []string {
	t.Helper()
	var dirs []string
	for _, pattern := range []string{
		"../../examples/*", "../../testdata/models/*", "../../testdata/builds/*", "../../testdata/errors/*",
		"testdata/*", "../kube/testdata/*",
	} {
		matches, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range matches {
			if fi, err := os.Stat(m); err == nil && fi.IsDir() {
				dirs = append(dirs, m)
			}
		}
	}
	if len(dirs) < 10 {
		t.Fatalf("only %d fixture projects found", len(dirs))
	}
	return dirs
}

// copyFixture copies a fixture without a go.mod into root with examples/wardle's go.mod and
// go.sum (as the tests that generate from it do), writing x.go.txt as x.go.
func copyFixture(t *testing.T, dir, root string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		writeFile(t, filepath.Join(root, strings.TrimSuffix(rel, ".txt")), string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"go.mod", "go.sum"} {
		writeFile(t, filepath.Join(root, name), readFile(t, filepath.Join("../../examples/wardle", name)))
	}
}

// dumpUniverse writes out everything gengo's universe holds, one line per fact, in a
// deterministic order. Types are named, not followed: each named type is written once, in its
// package.
func dumpUniverse(u types.Universe) []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	for _, path := range slices.Sorted(maps.Keys(u)) {
		pkg := u[path]
		if cgoImportOnly(path, pkg) {
			continue
		}
		add("package %q path=%q dir=%q name=%q", path, pkg.Path, pkg.Dir, pkg.Name)
		add("  doc %q", pkg.DocComments)
		add("  comments %q", pkg.Comments)
		add("  imports %q", slices.Sorted(maps.Keys(pkg.Imports)))
		for _, kind := range []struct {
			name string
			m    map[string]*types.Type
		}{{"type", pkg.Types}, {"func", pkg.Functions}, {"var", pkg.Variables}, {"const", pkg.Constants}} {
			for _, name := range slices.Sorted(maps.Keys(kind.m)) {
				out = append(out, dumpType("  "+kind.name+" "+name, kind.m[name])...)
			}
		}
	}
	return out
}

// cgoImportOnly reports whether pkg is runtime/cgo as gengo knows it only from cgo's
// output importing it: with nothing of it read. The load lists no compiled files
// (notCompiled), so its graph has runtime/cgo only where a package imports it itself or a
// cgo package was checked from cgo's output; gengo's own load always lists them.
func cgoImportOnly(path string, pkg *types.Package) bool {
	return path == "runtime/cgo" && pkg.Name == "" && len(pkg.Types)+len(pkg.Functions)+len(pkg.Variables)+len(pkg.Constants) == 0
}

func dumpType(prefix string, t *types.Type) []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, prefix+" "+fmt.Sprintf(format, args...)) }
	add("name=%s kind=%s len=%d gotype=%v", t.Name, t.Kind, t.Len, t.GoType)
	add("comments %q", t.CommentLines)
	add("second comments %q", t.SecondClosestCommentLines)
	if t.ConstValue != nil {
		add("value %q", *t.ConstValue)
	}
	for _, ref := range []struct {
		name string
		t    *types.Type
	}{{"elem", t.Elem}, {"key", t.Key}, {"underlying", t.Underlying}} {
		if ref.t != nil {
			add("%s %s", ref.name, ref.t.Name)
		}
	}
	for _, m := range t.Members {
		add("member %s embedded=%v tags=%q type=%s comments=%q", m.Name, m.Embedded, m.Tags, m.Type.Name, m.CommentLines)
	}
	for _, name := range slices.Sorted(maps.Keys(t.TypeParams)) {
		add("type param %s %s", name, t.TypeParams[name].Name)
	}
	for _, name := range slices.Sorted(maps.Keys(t.Methods)) {
		m := t.Methods[name]
		add("method %s type=%s comments=%q", name, m.Name, m.CommentLines)
		out = append(out, dumpSignature(prefix+" method "+name, m.Signature)...)
	}
	out = append(out, dumpSignature(prefix, t.Signature)...)
	return out
}

func dumpSignature(prefix string, s *types.Signature) []string {
	if s == nil {
		return nil
	}
	var out []string
	if s.Receiver != nil {
		out = append(out, fmt.Sprintf("%s receiver %s", prefix, s.Receiver.Name))
	}
	for _, p := range s.Parameters {
		out = append(out, fmt.Sprintf("%s param %s %s", prefix, p.Name, p.Type.Name))
	}
	for _, r := range s.Results {
		out = append(out, fmt.Sprintf("%s result %s %s", prefix, r.Name, r.Type.Name))
	}
	out = append(out, fmt.Sprintf("%s variadic=%v comments=%q", prefix, s.Variadic, s.CommentLines))
	return out
}
