package loader

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apigen-dev/apigen/internal/atomicfile"
)

// TestStdCache: a load with a std cache reads the standard library from the go build cache's
// export data and builds the universe a load from source builds: the seed's Source packages
// come from source, the comments of its Comments' are scanned from their files, and
// reading more of a package than export data holds is noticed (processing it, or holding its
// declarations without its comments indexed).
func TestStdCache(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the project three times; TestStdCacheRunsAtOnce and TestStdCacheListsOnce load with the std cache in -short mode")
	}
	cache := &StdCache{Dir: t.TempDir(), Identity: "TestStdCache"}
	const root = "testdata/project"
	source, err := Run(root, Options{FromSource: true})
	if err != nil {
		t.Fatal(err)
	}
	want := dumpUniverse(source.Universe)

	r, err := Run(root, Options{StdCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.std.std) < 50 {
		t.Fatalf("only %d standard library packages found in the load", len(r.std.std))
	}
	// What the go build cache holds (as go list says, building nothing) comes from it, but
	// the seed's packages gengo processes fully; the comments of those whose comments gengo
	// reads are scanned from their files.
	cached := goBuildCached(t, root, "unicode/utf8", "errors", "time", "fmt")
	if !cached["unicode/utf8"] {
		t.Log("the go build cache does not hold unicode/utf8 as the load builds it: only the load from source is tested")
	}
	for path, inCache := range cached {
		wantExport := inCache && path != "time"
		if r.std.fromExport[path] != wantExport {
			t.Errorf("%s from the go build cache: %t, want %t", path, r.std.fromExport[path], wantExport)
		}
	}
	if cached["fmt"] && len(r.std.comments["fmt"]) == 0 {
		t.Error("fmt's comments were not scanned from its files")
	}
	if touched := r.StdTouched(); len(touched) != 0 {
		t.Errorf("StdTouched = %q after a load from the go build cache; stdSeed lacks them", touched)
	}
	if diff := cmp.Diff(want, dumpUniverse(r.Universe)); diff != "" {
		t.Errorf("the universe differs with the go build cache's export data (-from source +export data):\n%s", diff)
	}
	if !cached["fmt"] || !cached["unicode/utf8"] {
		return
	}
	// Processing a package read from export data is noticed, and so is reading the
	// declarations of one whose comments are not indexed.
	if err := r.Require("unicode/utf8", "fmt"); err != nil {
		t.Fatal(err)
	}
	if touched := r.StdTouched(); !slices.Contains(touched, "fmt") || !slices.Contains(touched, "unicode/utf8") {
		t.Errorf("StdTouched = %q after unicode/utf8 and fmt were processed", touched)
	}
	again, err := Run(root, Options{StdCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	delete(again.std.comments, "fmt")
	if touched := again.StdTouched(); !slices.Contains(touched, "fmt") {
		t.Errorf("StdTouched = %q, want fmt, whose declarations the universe holds without its comments", touched)
	}
}

// TestStdCacheRunsAtOnce: two loads at once in one process (the command driven as a library,
// tests side by side), with one std cache: each reads the standard library from export data
// and builds its universe (gengo's builtin types, which every universe shares, are written
// under universeMu), and no temporary file is left in the cache.
func TestStdCacheRunsAtOnce(t *testing.T) {
	cache := &StdCache{Dir: t.TempDir(), Identity: "TestStdCacheRunsAtOnce"}
	const root = "testdata/project"
	results := make([]*Result, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() { results[i], errs[i] = Run(root, Options{StdCache: cache}) })
	}
	wg.Wait()
	for i, r := range results {
		if errs[i] != nil {
			t.Fatalf("run %d: %v", i, errs[i])
		}
		if thing := r.Universe["example.com/project/pkg/apis/things/v1"].Types["Thing"]; thing == nil || len(thing.Members) != 3 {
			t.Errorf("run %d: Thing = %+v", i, thing)
		}
	}
	if diff := cmp.Diff(dumpUniverse(results[0].Universe), dumpUniverse(results[1].Universe)); diff != "" {
		t.Errorf("the universes of two loads at once differ:\n%s", diff)
	}
	if tmp, _ := filepath.Glob(filepath.Join(cache.Dir, atomicfile.TempPrefix+"*")); len(tmp) > 0 {
		t.Errorf("temporary files left: %q", tmp)
	}
}

// TestStdCacheGoQuery: a load that lists the compiled files (a project whose loads had to,
// listCompiled) asks the go command in the background for the export data of the standard
// library's packages but the seed's Source, reads them from the go build cache, and builds the
// universe a load whose own go list named the export data builds.
func TestStdCacheGoQuery(t *testing.T) {
	const root = "testdata/project"
	if !goBuildCached(t, root, "errors")["errors"] {
		t.Skip("the go build cache does not hold errors as the load builds it")
	}
	cache := &StdCache{Dir: t.TempDir(), Identity: "TestStdCacheGoQuery"}
	listed, err := Run(root, Options{StdCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	cache.listCompiled(abs)
	asked, err := Run(root, Options{StdCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if q := asked.std.goq; q == nil || !q.asked["errors"] || q.asked["time"] || !asked.std.fromExport["errors"] || asked.std.fromExport["time"] {
		t.Error("listing the compiled files, the go command was not asked for errors (or was for time, which the seed takes from source)")
	}
	if diff := cmp.Diff(dumpUniverse(listed.Universe), dumpUniverse(asked.Universe)); diff != "" {
		t.Errorf("the universe differs when the go command is asked beside the load (-in its go list +beside):\n%s", diff)
	}
}

// TestStdCacheStaleGoCache: with a go build cache that does not hold the standard library (a
// cleaned or new GOCACHE), a load with a std cache takes the standard library from source, builds the universe a load from source builds, and leaves the go build cache
// without it: the go command compiled nothing.
func TestStdCacheStaleGoCache(t *testing.T) {
	if testing.Short() {
		t.Skip("loads from source twice, as TestLoad does in -short mode")
	}
	const root = "testdata/project"
	source, err := Run(root, Options{FromSource: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOCACHE", t.TempDir())
	cache := &StdCache{Dir: t.TempDir(), Identity: "TestStdCacheStaleGoCache"}
	r, err := Run(root, Options{StdCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.std.fromExport) != 0 {
		t.Errorf("%d packages read from export data with an empty go build cache", len(r.std.fromExport))
	}
	if diff := cmp.Diff(dumpUniverse(source.Universe), dumpUniverse(r.Universe)); diff != "" {
		t.Errorf("the universe differs with an empty go build cache (-from source +std cache):\n%s", diff)
	}
	for path, inCache := range goBuildCached(t, root, "unicode/utf8", "errors", "runtime", "fmt") {
		if inCache {
			t.Errorf("the go command built %s into the empty go build cache", path)
		}
	}
}

// goBuildCached reports for each package whether the go build cache holds it as the load in
// root builds it: what go list -f {{.Stale}} says (it builds nothing).
func goBuildCached(t *testing.T, root string, pkgs ...string) map[string]bool {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-tags=" + BuildTag, "-f", "{{.ImportPath}} {{.Stale}}", "--"}, pkgs...)...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	cached := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, stale, _ := strings.Cut(line, " ")
		cached[path] = stale == "false"
	}
	return cached
}

// TestLoadAgain: a load that read a package from the go build cache that gengo then
// processed fully (time, once the seed forgets it) is done again by Run with Options.Previous with that
// package from source and the rest of the standard library from the export data the first
// load found, without asking the go command again; the universe is the one from source and
// the load reads no more than it was given.
func TestLoadAgain(t *testing.T) {
	if testing.Short() {
		t.Skip("loads twice, reading export data as TestStdCacheListsOnce does in -short mode")
	}
	const root = "testdata/project"
	source, err := Run(root, Options{FromSource: true})
	if err != nil {
		t.Fatal(err)
	}
	seed := stdSeed.Source
	stdSeed.Source = slices.DeleteFunc(slices.Clone(seed), func(p string) bool { return p == "time" })
	defer func() { stdSeed.Source = seed }()
	cache := &StdCache{Dir: t.TempDir(), Identity: "TestLoadAgain"}

	first, err := Run(root, Options{StdCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if !goBuildCached(t, root, "time")["time"] {
		t.Skip("the go build cache does not hold time as the load builds it")
	}
	if touched := first.StdTouched(); !slices.Contains(touched, "time") {
		t.Fatalf("StdTouched = %q with time read from the go build cache, want time", touched)
	}
	again, err := Run(root, Options{StdCache: cache, Previous: first})
	if err != nil {
		t.Fatal(err)
	}
	if touched := again.StdTouched(); len(touched) != 0 {
		t.Errorf("StdTouched = %q after the load done again", touched)
	}
	if again.std.fromExport["time"] || len(again.std.fromExport) == 0 || len(again.std.fromExport) != len(first.std.fromExport)-1 {
		t.Errorf("the load done again read time from export data: %t, %d packages from the go build cache, want false, %d",
			again.std.fromExport["time"], len(again.std.fromExport), len(first.std.fromExport)-1)
	}
	if first.std.goq == nil || again.std.goq != first.std.goq {
		t.Error("the load done again asked the go command again")
	}
	if diff := cmp.Diff(dumpUniverse(source.Universe), dumpUniverse(again.Universe)); diff != "" {
		t.Errorf("the universe differs after the load done again (-from source +again):\n%s", diff)
	}
}

// TestStdCacheListsOnce: a load with a std cache asks the go command about the go build
// cache's export data in the load's own go list, not in a second one beside it, and reads the
// standard library from the files it names.
func TestStdCacheListsOnce(t *testing.T) {
	const root = "testdata/project"
	if !goBuildCached(t, root, "errors")["errors"] {
		t.Skip("the go build cache does not hold errors as the load builds it")
	}
	real, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	// A go on PATH that notes its arguments, one line a command, and runs the real one.
	bin := t.TempDir()
	log := filepath.Join(bin, "log")
	shim := "#!/bin/sh\nprintf '%s\\n' \"$*\" >>" + log + "\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(shim), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	r, err := Run(root, Options{StdCache: &StdCache{Dir: t.TempDir(), Identity: "TestStdCacheListsOnce"}})
	if err != nil {
		t.Fatal(err)
	}
	if !r.std.fromExport["errors"] {
		t.Error("errors was not read from the go build cache")
	}
	out, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var exports []string
	for _, cmd := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.HasPrefix(cmd, "list ") && strings.Contains(cmd, "-export") {
			exports = append(exports, cmd)
		}
	}
	if len(exports) != 1 || !strings.Contains(exports[0], "-json=") || !strings.Contains(exports[0], " -n") {
		t.Errorf("go commands asking for export data:\n%s\nwant one: the load's go list, with -n", strings.Join(exports, "\n"))
	}
}
