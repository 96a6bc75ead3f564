package loader

import (
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/klog/v2"
)

// TestWithout: each piece of the load's speed machinery that hack/bench/loadparts.sh turns off
// (Options.Without) changes only how the load is made: the universe and the type errors are
// those of a load with nothing off, loaded again as pipeline.Run loads (StdTouched). With
// nothing off, one load reads the standard library from export data; without the seed lists,
// the load reads too little and is done again; without checkGraph, nothing comes from export
// data; without the feed, gengo loads for itself.
func TestWithout(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the project five times or more")
	}
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	defer klog.LogToStderr(true)
	const root = "testdata/project"
	cache := &StdCache{Dir: t.TempDir(), Identity: "TestWithout"}
	// load returns the load as pipeline.Run keeps it, and how many loads it took.
	load := func(t *testing.T, w Without) (*Result, int) {
		t.Helper()
		r, err := Run(root, Options{StdCache: cache, Without: w})
		if err != nil {
			t.Fatal(err)
		}
		loads := 1
		if touched := r.StdTouched(); len(touched) > 0 {
			loads++
			if r, err = Run(root, Options{StdCache: cache, Previous: r, Without: w}); err != nil {
				t.Fatal(err)
			}
			if touched := r.StdTouched(); len(touched) > 0 {
				loads++
				if r, err = Run(root, Options{StdCache: cache, FromSource: true, Without: w}); err != nil {
					t.Fatal(err)
				}
			}
		}
		return r, loads
	}
	want, loads := load(t, Without{})
	if loads != 1 || len(want.std.fromExport) == 0 {
		t.Fatalf("with nothing off: %d loads, %d packages from export data; want one load, some", loads, len(want.std.fromExport))
	}
	wantUniverse, wantErrors := dumpUniverse(want.Universe), want.TypeErrors.Error()
	for _, c := range []struct {
		name string
		w    Without
	}{
		{"seed", Without{Seed: true}},
		{"check", Without{Check: true}},
		{"feed", Without{Feed: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, loads := load(t, c.w)
			if diff := cmp.Diff(wantUniverse, dumpUniverse(got.Universe)); diff != "" {
				t.Errorf("the universe differs (-nothing off +%s off):\n%s", c.name, diff)
			}
			if diff := cmp.Diff(wantErrors, got.TypeErrors.Error()); diff != "" {
				t.Errorf("the type errors differ (-nothing off +%s off):\n%s", c.name, diff)
			}
			switch {
			case c.w.Seed:
				if loads < 2 {
					t.Errorf("without the seed lists: %d load, want it done again", loads)
				}
			case c.w.Check:
				if len(got.std.fromExport) != 0 {
					t.Errorf("without checkGraph, %d packages from export data", len(got.std.fromExport))
				}
			case c.w.Feed:
				if got.fed {
					t.Error("without the feed, gengo was fed the load")
				}
			}
		})
	}
}
