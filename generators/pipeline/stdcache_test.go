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

// TestRunStdCacheRetry: a run whose load read a package from the std cache that the universe
// then read more of (the cache forgot what an earlier run learned) is done again with it from
// source, before the generators run when the load shows it, gives the output of a run
// without the cache, and the cache learns the package again.
func TestRunStdCacheRetry(t *testing.T) {
	if testing.Short() {
		t.Skip("generates examples/wardle five times")
	}
	const dir = "../../examples/wardle"
	want, err := Run(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cache := &loader.StdCache{Dir: t.TempDir(), Identity: "TestRunStdCacheRetry"}
	if _, err := Run(dir, Options{StdCache: cache}); err != nil { // fills the cache
		t.Fatal(err)
	}
	// gengo processes time fully (metav1.Time embeds time.Time) and holds declarations of fmt.
	if err := cache.Forget("time", "fmt"); err != nil {
		t.Fatal(err)
	}
	generated := func() *loader.Result {
		t.Helper()
		load, err := Load(dir, cache)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Generate(load, Options{}); err != nil {
			t.Fatal(err)
		}
		return load
	}
	if touched := generated().StdTouched(); !slices.Contains(touched, "time") || !slices.Contains(touched, "fmt") {
		t.Fatalf("StdTouched = %q once the cache forgot time and fmt", touched)
	}
	// The load itself finds time and fmt (gengo processes the packages the API types refer
	// to as it loads): the generators run once, on the load done again.
	works := 0
	got, err := fromStdCache(dir, loader.Options{StdCache: cache}, func(load *loader.Result) (*Result, error) {
		works++
		return Generate(load, Options{})
	})
	if err != nil {
		t.Fatal(err)
	}
	if works != 1 {
		t.Errorf("the generators ran %d times, want once: the load read too little, which the load itself shows", works)
	}
	if !got.Output.Equal(want.Output) {
		t.Error("the run done again differs from a run without the std cache")
	}
	if touched := generated().StdTouched(); len(touched) != 0 {
		t.Errorf("StdTouched = %q after the cache learned them again", touched)
	}
}

// TestStdTypesInSchemas: a kind with fields of the standard library's types (io/fs.FileMode,
// log/slog.Level, time.Duration) gets the schemas, and the output, of a run without the std
// cache, whether the cache knows those packages are needed or not: the load hides from
// controller-tools the std packages it read from export data (loader's sealStd), never one
// the schemas describe.
func TestStdTypesInSchemas(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a copy of examples/wardle four times")
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
	for _, forget := range [][]string{nil, nil, {"io/fs", "log/slog"}} {
		// The first run fills the cache, the second reads it; after the third's Forget, the
		// load reads io/fs and log/slog from export data again.
		if forget != nil {
			if err := cache.Forget(forget...); err != nil {
				t.Fatal(err)
			}
		}
		got, err := Run(dir, Options{StdCache: cache})
		if err != nil {
			t.Fatal(err)
		}
		if schema(got) != schema(want) {
			t.Errorf("forgot %q: the schema of Fischer differs with the std cache:\n%s\nwant:\n%s", forget, schema(got), schema(want))
		}
		if !got.Output.Equal(want.Output) {
			t.Errorf("forgot %q: the output differs with the std cache", forget)
		}
	}
}

// TestRunStdCacheCold: a run with an empty std cache (the first of an apigen binary) reads
// what the go build cache holds of the standard library, needs no second load (stdSeed holds
// what examples/wardle's run reads of the standard library beyond its types, and math/big,
// which gengo processes fully once an API type has a resource.Quantity field), and gives the
// output of a run without the std cache.
func TestRunStdCacheCold(t *testing.T) {
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
		load, err := Load(dir, &loader.StdCache{Dir: t.TempDir(), Identity: "TestRunStdCacheCold"})
		if err != nil {
			t.Fatal(err)
		}
		load.PrepareStdCache() // as Run does: the entry is encoded beside the generators
		got, err := Generate(load, Options{})
		load.SaveStdCache()
		if err != nil {
			t.Fatal(err)
		}
		if touched := load.StdTouched(); len(touched) != 0 {
			t.Errorf("%s: StdTouched = %q on a cold run: the loader's stdSeed lacks them", dir, touched)
		}
		if !got.Output.Equal(want.Output) {
			t.Errorf("%s: the cold run differs from a run without the std cache", dir)
		}
	}
}
