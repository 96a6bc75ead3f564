package loader

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/klog/v2"
)

// TestWithout: each piece of the load's speed machinery that hack/bench/loadparts.sh turns off
// (Options.Without) changes only how the load is made: the universe and the type errors are
// those of a load with nothing off, loaded again as pipeline.Run loads (StdTouched). Without
// the entry, the load reads the standard library from the go build cache and writes no entry;
// without checkGraph, nothing comes from export data.
func TestWithout(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the project seven times")
	}
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	defer klog.LogToStderr(true)
	const root = "testdata/project"
	cache := &StdCache{Dir: t.TempDir(), Identity: "TestWithout"}
	load := func(t *testing.T, w Without) *Result {
		t.Helper()
		r, err := Run(root, Options{StdCache: cache, Without: w})
		if err != nil {
			t.Fatal(err)
		}
		if touched := r.StdTouched(); len(touched) > 0 {
			if r, err = Run(root, Options{StdCache: cache, Previous: r, Without: w}); err != nil {
				t.Fatal(err)
			}
			if touched := r.StdTouched(); len(touched) > 0 {
				if r, err = Run(root, Options{StdCache: cache, FromSource: true, Without: w}); err != nil {
					t.Fatal(err)
				}
			}
		}
		r.SaveStdCache()
		return r
	}
	want := load(t, Without{}) // fills the entry
	wantUniverse, wantErrors := dumpUniverse(want.Universe), want.TypeErrors.Error()
	for _, c := range []struct {
		name string
		w    Without
	}{
		{"entry", Without{Entry: true}},
		{"entry,seed", Without{Entry: true, Seed: true}},
		{"check", Without{Check: true}},
		{"feed", Without{Feed: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := entryFiles(t, cache.Dir)
			got := load(t, c.w)
			if diff := cmp.Diff(wantUniverse, dumpUniverse(got.Universe)); diff != "" {
				t.Errorf("the universe differs (-nothing off +%s off):\n%s", c.name, diff)
			}
			if diff := cmp.Diff(wantErrors, got.TypeErrors.Error()); diff != "" {
				t.Errorf("the type errors differ (-nothing off +%s off):\n%s", c.name, diff)
			}
			switch {
			case c.w.Entry:
				if len(got.std.fromGo) == 0 || len(got.std.fromGo) != len(got.std.fromExport) {
					t.Errorf("without the entry: %d packages from the go build cache of %d from export data, want all and some", len(got.std.fromGo), len(got.std.fromExport))
				}
				if after := entryFiles(t, cache.Dir); !cmp.Equal(before, after) {
					t.Errorf("without the entry, the cache changed: %v, then %v", before, after)
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

// entryFiles returns the cache's files with their sizes and modification times.
func entryFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		fi, err := os.Stat(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = fmt.Sprint(fi.Size(), " ", fi.ModTime())
	}
	return out
}
