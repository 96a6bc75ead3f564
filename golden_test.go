package apigen_test

import (
	"flag"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/pipeline"
)

var update = flag.Bool("update", false, "rewrite the generated files of the golden projects from the current output")

// TestGolden regenerates every example project in memory and fails when a committed generated
// file differs, is missing or is stale; -update writes the current output instead. Review the
// diff of an update: a change in generated code you did not mean is a bug.
func TestGolden(t *testing.T) {
	dirs, err := filepath.Glob("examples/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			out := generate(t, dir)
			if *update {
				plan, err := engine.NewPlan(dir, out)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := plan.Apply(); err != nil {
					t.Fatal(err)
				}
				return
			}
			plan, err := engine.NewPlan(dir, out)
			if err != nil {
				t.Fatal(err)
			}
			if !plan.Current() {
				t.Errorf("generated files of %s are out of date (go test -run TestGolden -update):\n%s", dir, plan.Diff())
			}
		})
	}
}

// TestDeterministic generates the same project twice, and once more from a copy at another
// absolute path, and wants the same bytes every time.
func TestDeterministic(t *testing.T) {
	const dir = "examples/wardle"
	first := generate(t, dir)
	if again := generate(t, dir); !first.Equal(again) {
		t.Fatal("two runs over the same project produced different output")
	}
	elsewhere := filepath.Join(t.TempDir(), "some", "other", "place")
	copyTree(t, dir, elsewhere)
	if moved := generate(t, elsewhere); !first.Equal(moved) {
		t.Fatal("the same project at another path produced different output")
	}
	for _, name := range first.Paths() {
		data, _ := first.Get(name)
		if strings.Contains(string(data), elsewhere) || strings.Contains(string(data), mustAbs(t, dir)) {
			t.Errorf("%s contains an absolute path", name)
		}
		if !engine.IsGenerated(name, data) {
			t.Errorf("%s lacks the %q header", name, engine.GeneratedLine)
		}
	}
}

func generate(t *testing.T, dir string) *engine.Output {
	t.Helper()
	res, err := pipeline.Run(dir, pipeline.Options{StdCache: stdCache})
	if err != nil {
		t.Fatalf("generating %s: %v", dir, err)
	}
	return res.Output
}

func mustAbs(t *testing.T, p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		target := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestModelGolden builds the model of each project under testdata/models and compares it, as
// apigen generate --dump-model prints it, with the case's model.json; -update rewrites it.
// These are the parser's goldens: markers, defaults, aliases and hooks as the model sees them.
func TestModelGolden(t *testing.T) {
	cases, err := filepath.Glob("testdata/models/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range cases {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			root := filepath.Join(t.TempDir(), filepath.Base(dir))
			copyTree(t, dir, root) // the API packages, and a PROJECT file where the case has one
			useWardleModule(t, root)
			_, project, err := pipeline.Model(root, stdCache)
			if err != nil {
				t.Fatal(err)
			}
			got, err := project.JSON()
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join(dir, "model.json")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("model of %s (-want +got; go test -run TestModelGolden -update to accept):\n%s", dir, diff)
			}
		})
	}
}

// useWardleModule gives the project at root examples/wardle's go.mod and go.sum, so that its
// module is example.com/wardle and its load needs nothing outside the module cache.
func useWardleModule(t *testing.T, root string) {
	t.Helper()
	for _, name := range []string{"go.mod", "go.sum"} {
		data, err := os.ReadFile(filepath.Join("examples", "wardle", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestUserSourceReadOnce: apigen generate reads the user's API source once, in the load. The
// load parses each API file exactly once; afterwards every API file is replaced by an empty
// package, and generating from the load still gives what a normal run gives, so nothing after
// the load (model, schemas, generators) read the source again.
func TestUserSourceReadOnce(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wardle")
	copyTree(t, "examples/wardle", root)
	want := generate(t, root)

	load, err := pipeline.Load(root, stdCache)
	if err != nil {
		t.Fatal(err)
	}
	parsed := map[string]int{}
	load.Fset.Iterate(func(f *token.File) bool {
		parsed[f.Name()]++
		return true
	})
	var apiFiles []string
	err = filepath.WalkDir(filepath.Join(root, "pkg", "apis"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil || engine.IsGenerated(path, data) {
			return err
		}
		apiFiles = append(apiFiles, path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(apiFiles) < 10 {
		t.Fatalf("found only %d API files in %s", len(apiFiles), root)
	}
	for _, name := range apiFiles {
		if parsed[name] != 1 {
			t.Errorf("%s: parsed %d times by the load, want 1", name, parsed[name])
		}
		if err := os.WriteFile(name, []byte("package garbled // the load has read this file\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	res, err := pipeline.Generate(load, pipeline.Options{StdCache: stdCache})
	if err != nil {
		t.Fatalf("generating from the load after the API files changed: %v", err)
	}
	if !want.Equal(res.Output) {
		diff := differing(want, res.Output)
		t.Errorf("generating from the load read the changed API files: %d files differ, among them %v", len(diff), diff[:min(5, len(diff))])
	}
}

// differing names the paths whose content differs between two outputs.
func differing(a, b *engine.Output) []string {
	var out []string
	for _, name := range a.Paths() {
		x, _ := a.Get(name)
		y, ok := b.Get(name)
		if !ok || string(x) != string(y) {
			out = append(out, name)
		}
	}
	for _, name := range b.Paths() {
		if _, ok := a.Get(name); !ok {
			out = append(out, name)
		}
	}
	return out
}
