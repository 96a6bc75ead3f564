package cli

import (
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/pipeline"
	"github.com/apigen-dev/apigen/internal/runcache"
)

// resultCache is how generate and verify use the result cache: look the run up before the load,
// record it after a run that left the tree current. Both record the same fact (for these
// inputs, the tree is exactly what generate writes), so they share entries: a verify after a
// generate hits.
type resultCache struct {
	root   string
	flags  *generateFlags
	store  *runcache.Store
	before *runcache.Snapshot
	log    io.Writer // -v: hit, miss and why; io.Discard otherwise
}

// openCache fingerprints the run about to happen. It returns the generated paths of a cached
// success and true on a hit; on a miss the cache is ready to record (nil when bypassed).
func openCache(root string, f *generateFlags, log io.Writer) (*resultCache, []string, bool) {
	if f.noCache {
		fmt.Fprintln(log, "apigen: cache miss: disabled by --no-cache")
		return nil, nil, false
	}
	c := &resultCache{root: root, flags: f, log: log}
	dir, err := runcache.DefaultDir()
	if err != nil {
		fmt.Fprintf(log, "apigen: cache miss: no cache directory: %v\n", err)
		return nil, nil, false
	}
	c.store = runcache.NewStore(dir)
	if c.before, err = c.snapshot(); err != nil {
		fmt.Fprintf(log, "apigen: cache miss: %v\n", err)
		return nil, nil, false
	}
	entry, ok := c.store.Get(c.before.Key)
	if !ok {
		fmt.Fprintln(log, "apigen: cache miss: no success recorded for these inputs")
		return c, nil, false
	}
	if changed := entry.Current(); changed != "" {
		fmt.Fprintf(log, "apigen: cache miss: %s, which the last run read, has changed\n", changed)
		return c, nil, false
	}
	fmt.Fprintln(log, "apigen: cache hit")
	return nil, entry.Paths, true
}

// snapshot fingerprints the module and the flags that change the output (--header-file as
// given and where it points, --year). The files the run reads besides the module's sources
// (the header file, kubebuilder's PROJECT file) are not named here: the run records what it
// reads (loader.Reads), and the entry it stores checks every such file (put).
func (c *resultCache) snapshot() (*runcache.Snapshot, error) {
	header, _ := pipeline.HeaderPath(c.root, c.flags.headerFile)
	return runcache.Take(c.root, map[string]string{
		"--header-file": c.flags.headerFile,
		"header path":   header,
		"--year":        c.flags.year,
	})
}

// record stores a run that left the tree current, having written or deleted the given paths.
// It stores nothing unless the tree, apart from those paths, is what the run started from (so
// nobody edited an input meanwhile) and the tree holds exactly the plan's output. Failing to
// store is no failure of the run.
func (c *resultCache) record(plan *engine.Plan, touched ...[]string) {
	if c == nil {
		return
	}
	if len(plan.Warnings) > 0 {
		// A hit would answer without them: a run with warnings always loads and repeats them.
		fmt.Fprintln(c.log, "apigen: cache not written: the run had warnings")
		return
	}
	if err := c.put(plan, slices.Concat(touched...)); err != nil {
		fmt.Fprintf(c.log, "apigen: cache not written: %v\n", err)
	}
}

// abs is the absolute name of the project file at rel, as the run's reads name it.
func (c *resultCache) abs(rel string) string { return filepath.Join(c.root, filepath.FromSlash(rel)) }

func (c *resultCache) put(plan *engine.Plan, touched []string) error {
	after, err := c.snapshot()
	if err != nil {
		return err
	}
	if !c.before.SameExcept(after, touched) {
		return fmt.Errorf("the inputs changed during the run")
	}
	// What the run wrote or deleted counts as it is now, as the run left it.
	reads := maps.Clone(plan.Reads)
	if reads == nil {
		reads = map[string]string{}
	}
	for _, p := range touched {
		reads[c.abs(p)] = ""
	}
	inputs, err := after.Inputs(reads)
	if err != nil {
		return fmt.Errorf("an input: %w", err)
	}
	out := plan.Output()
	for _, p := range out.Paths() {
		if data, _ := out.Get(p); !after.Holds(p, data) && inputs[c.abs(p)] != runcache.Fact(data) {
			return fmt.Errorf("%s is not among the inputs the cache checks, or differs from the output", p)
		}
	}
	return c.store.Put(after.Key, runcache.Entry{Paths: out.Paths(), Inputs: inputs})
}
