package pipeline

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/loader"
	"github.com/apigen-dev/apigen/internal/testproject"
)

// TestEmittersInAnyOrder runs apigen's own emitters in shuffled orders after the upstream
// generators and wants the same output every time: no emitter reads another's files or a
// model fact another emitter sets. examples/wardle, and testdata/models/hooks_and_shapes,
// whose Robot has a Default hook and a declarative default (the registration calls the object
// defaulter defaulter-gen writes, a fact of the upstream step).
func TestEmittersInAnyOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("generates two projects several times")
	}
	hooks := testproject.Copy(t, "../..", "../../testdata/models/hooks_and_shapes")
	for _, dir := range []string{"../../examples/wardle", hooks} {
		t.Run(filepath.Base(dir), func(t *testing.T) { emittersInAnyOrder(t, dir) })
	}
}

func emittersInAnyOrder(t *testing.T, dir string) {
	// Each run gets a model of its own, so that no fact an emitter set in an earlier run
	// stands in for one set in this run.
	run := func(emitters []engine.Generator) *engine.Output {
		t.Helper()
		load, err := Load(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := generate(load, Options{}, emitters)
		if err != nil {
			t.Fatal(err)
		}
		return res.Output
	}
	want := run(Emitters())
	for seed := range uint64(4) {
		order := Emitters()
		rand.New(rand.NewPCG(seed, seed)).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		names := make([]string, len(order))
		for i, g := range order {
			names[i] = g.Name()
		}
		if got := run(order); !got.Equal(want) {
			for _, p := range want.Paths() {
				a, _ := want.Get(p)
				if b, ok := got.Get(p); !ok || string(a) != string(b) {
					t.Errorf("emitters in the order %v: %s differs", names, p)
				}
			}
			t.Errorf("emitters in the order %v: output differs (%d files, want %d)", names, got.Len(), want.Len())
		}
	}
}

// TestRunsAtOnce: two runs of examples/wardle at once in one process (apigen's command driven
// as a library), sharing a std cache, each generate what apigen verify finds current: the
// examples' generated files. Under the race detector (make test-race) it is the pipeline's
// test of everything a run starts beside itself (the load's checks, the formatting of the
// upstream generators' files) and of what two runs share (gengo's builtin types, klog, the std
// cache's directory).
func TestRunsAtOnce(t *testing.T) {
	const dir = "../../examples/wardle"
	cache := &loader.StdCache{Dir: t.TempDir(), Identity: "TestRunsAtOnce"}
	results := make([]*Result, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() { results[i], errs[i] = Run(dir, Options{StdCache: cache}) })
	}
	wg.Wait()
	for i, res := range results {
		if errs[i] != nil {
			t.Fatalf("run %d: %v", i, errs[i])
		}
		plan, err := engine.NewPlan(dir, res.Output)
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if !plan.Current() {
			t.Errorf("run %d differs from examples/wardle's generated files (make verify-examples shows whether they are stale):\n%s", i, plan.Diff())
		}
	}
	// The directory keeps only the notes of projects whose loads list cgo's files.
	if left, err := os.ReadDir(cache.Dir); err != nil || len(left) != 0 {
		t.Errorf("the runs left %v in the std cache's directory (%v), want nothing", left, err)
	}
}
