package pipeline

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apigen-dev/apigen/generators/loader"
)

// TestRunStdCacheRetry: a run whose load read a package from export data that the universe
// then read more of (fmt, whose comments the generators read, once the seed lists are empty)
// is done again with it from source once the generators show it, and gives the output of a
// run from source, as a run with the seed lists does with one load. (TestStdTypesInSchemas
// has the load itself show it, before the generators run.)
func TestRunStdCacheRetry(t *testing.T) {
	if testing.Short() {
		t.Skip("generates examples/wardle four times")
	}
	const dir = "../../examples/wardle"
	want, err := Run(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cache := &loader.StdCache{Dir: t.TempDir(), Identity: "TestRunStdCacheRetry"}
	noSeed := loader.Options{StdCache: cache, Without: loader.Without{Seed: true}}
	first, err := load(dir, noSeed)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(first, Options{}); err != nil {
		t.Fatal(err)
	}
	// gengo holds declarations of fmt and reads their comments.
	if touched := first.StdTouched(); !slices.Contains(touched, "fmt") {
		t.Fatalf("StdTouched = %q without the seed lists, want fmt", touched)
	}
	for _, o := range []loader.Options{noSeed, {StdCache: cache}} {
		works := 0
		got, err := fromStdCache(dir, o, func(load *loader.Result) (*Result, error) {
			works++
			return Generate(load, Options{})
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{true: 2, false: 1}[o.Without.Seed]; works != want {
			t.Errorf("seed off %t: the generators ran %d times, want %d", o.Without.Seed, works, want)
		}
		if !got.Output.Equal(want.Output) {
			t.Errorf("seed off %t: the run differs from a run from source", o.Without.Seed)
		}
	}
}

// TestStdTypesInSchemas: a kind with fields of the standard library's types (io/fs.FileMode,
// log/slog.Level, time.Duration) gets the schemas, and the output, of a run without the std
// cache, with the seed lists and without: the load hides from controller-tools the std
// packages it read from export data (loader's sealStd), never one the schemas describe (io/fs
// and log/slog, which no seed names: the load itself finds that gengo processes them, so it
// is done again with them from source before the generators run, once).
func TestStdTypesInSchemas(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a copy of examples/wardle three times")
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../examples/wardle")); err != nil {
		t.Fatal(err)
	}
	types := filepath.Join(dir, "pkg/apis/wardle/v1alpha1/fischer_types.go")
	src, err := os.ReadFile(types)
	if err != nil {
		t.Fatal(err)
	}
	src = bytes.Replace(src, []byte("import (\n"), []byte("import (\n\t\"io/fs\"\n\t\"log/slog\"\n\t\"time\"\n"), 1)
	src = bytes.Replace(src, []byte("\tDisallowedFlunders []string"), []byte(`	// Mode is a file mode.
	// +optional
	Mode fs.FileMode `+"`json:\"mode,omitempty\"`"+`
	// Level is a log level.
	// +optional
	Level slog.Level `+"`json:\"level,omitempty\"`"+`
	// Timeout is a duration.
	// +optional
	Timeout time.Duration `+"`json:\"timeout,omitempty\"`"+`

	DisallowedFlunders []string`), 1)
	if err := os.WriteFile(types, src, 0o644); err != nil {
		t.Fatal(err)
	}

	schema := func(r *Result) string {
		t.Helper()
		for _, g := range r.Project.Groups {
			for _, v := range g.Versions {
				for _, res := range v.Resources {
					if res.Kind == "Fischer" && v.Name == "v1alpha1" {
						return string(res.Schema)
					}
				}
			}
		}
		t.Fatal("no schema of Fischer in v1alpha1")
		return ""
	}
	want, err := Run(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"mode":{"type":"integer","format":"int32"}`, `"level":{"type":"integer"}`, `"timeout":{"type":"integer","format":"int64"}`} {
		if !strings.Contains(schema(want), field) {
			t.Fatalf("the schema of Fischer lacks %s:\n%s", field, schema(want))
		}
	}

	cache := &loader.StdCache{Dir: t.TempDir(), Identity: "TestStdTypesInSchemas"}
	for _, without := range []loader.Without{{}, {Seed: true}} {
		works := 0
		got, err := fromStdCache(dir, loader.Options{StdCache: cache, Without: without}, func(load *loader.Result) (*Result, error) {
			works++
			return Generate(load, Options{})
		})
		if err != nil {
			t.Fatal(err)
		}
		if !without.Seed && works != 1 {
			t.Errorf("the generators ran %d times, want once: the load itself shows it read too little", works)
		}
		if schema(got) != schema(want) {
			t.Errorf("seed off %t: the schema of Fischer differs with the std cache:\n%s\nwant:\n%s", without.Seed, schema(got), schema(want))
		}
		if !got.Output.Equal(want.Output) {
			t.Errorf("seed off %t: the output differs with the std cache", without.Seed)
		}
	}
}

// TestRunStdSeed: a run with a std cache reads what the go build cache holds of the standard
// library, needs no second load (stdSeed holds what examples/wardle's run reads of the
// standard library beyond its types, and math/big, which gengo processes fully once an API
// type has a resource.Quantity field), and gives the output of a run without the std cache.
func TestRunStdSeed(t *testing.T) {
	if testing.Short() {
		t.Skip("generates examples/wardle four times")
	}
	quantity := t.TempDir()
	if err := os.CopyFS(quantity, os.DirFS("../../examples/wardle")); err != nil {
		t.Fatal(err)
	}
	types := filepath.Join(quantity, "pkg/apis/wardle/v1alpha1/fischer_types.go")
	src, err := os.ReadFile(types)
	if err != nil {
		t.Fatal(err)
	}
	src = bytes.Replace(src, []byte("import (\n"), []byte("import (\n\t\"k8s.io/apimachinery/pkg/api/resource\"\n"), 1)
	src = bytes.Replace(src, []byte("\tDisallowedFlunders []string"), []byte(`	// Capacity is a quantity.
	// +optional
	Capacity resource.Quantity `+"`json:\"capacity,omitempty\"`"+`

	DisallowedFlunders []string`), 1)
	if !bytes.Contains(src, []byte("Capacity resource.Quantity")) {
		t.Fatal("no Quantity field added to Fischer")
	}
	if err := os.WriteFile(types, src, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"../../examples/wardle", quantity} {
		want, err := Run(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		load, err := Load(dir, &loader.StdCache{Dir: t.TempDir(), Identity: "TestRunStdSeed"})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Generate(load, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if touched := load.StdTouched(); len(touched) != 0 {
			t.Errorf("%s: StdTouched = %q: the loader's stdSeed lacks them", dir, touched)
		}
		if !got.Output.Equal(want.Output) {
			t.Errorf("%s: the run differs from a run without the std cache", dir)
		}
	}
}
