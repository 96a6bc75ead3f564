package pipeline

import (
	"slices"
	"testing"

	"github.com/apigen-dev/apigen/generators/loader"
)

// TestRunStdCacheRetry: a run whose load read a package from the std cache that the universe
// then read more of (the cache forgot what an earlier run learned) is done again from source,
// gives the output of a run without the cache, and the cache learns the package again.
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
	loader.DefaultStdCache = cache
	defer func() { loader.DefaultStdCache = nil }()
	if _, err := Run(dir, Options{}); err != nil { // fills the cache
		t.Fatal(err)
	}
	// gengo processes time fully (metav1.Time embeds time.Time) and holds declarations of fmt.
	if err := cache.Forget("time", "fmt"); err != nil {
		t.Fatal(err)
	}
	generated := func() *loader.Result {
		t.Helper()
		load, err := Load(dir)
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
	got, err := Run(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Output.Equal(want.Output) {
		t.Error("the run done again from source differs from a run without the std cache")
	}
	if touched := generated().StdTouched(); len(touched) != 0 {
		t.Errorf("StdTouched = %q after the cache learned them again", touched)
	}
}

// TestRunStdCacheCold: a run with an empty std cache (the first of an apigen binary) reads
// what the go build cache holds of the standard library, needs no second load (stdSeed holds
// what examples/wardle's run reads of the standard library beyond its types), and gives the
// output of a run without the std cache.
func TestRunStdCacheCold(t *testing.T) {
	if testing.Short() {
		t.Skip("generates examples/wardle twice")
	}
	const dir = "../../examples/wardle"
	want, err := Run(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	loader.DefaultStdCache = &loader.StdCache{Dir: t.TempDir(), Identity: "TestRunStdCacheCold"}
	defer func() { loader.DefaultStdCache = nil }()
	load, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Generate(load, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if touched := load.StdTouched(); len(touched) != 0 {
		t.Errorf("StdTouched = %q on a cold run: the loader's stdSeed lacks them", touched)
	}
	if !got.Output.Equal(want.Output) {
		t.Error("the cold run differs from a run without the std cache")
	}
}
