package loader

import (
	"maps"
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

// TestStdCache: a load with an empty std cache reads the standard library from the go build
// cache and builds the universe a load from source builds; it fills the std cache, and the
// next load reads the standard library from it and builds the same universe; the packages the
// universe reads are taken from source; a package's entry is used only while its files, and
// its imports', are those it was checked from; a damaged entry is not read; reading more of a
// package than export data holds is noticed.
func TestStdCache(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the project nine times; TestStdCacheRunsAtOnce, TestStdCacheColdListsOnce and TestStdCacheSeedKept load with the std cache in -short mode")
	}
	cache := &StdCache{Dir: t.TempDir(), Identity: "TestStdCache"}
	const root = "testdata/project"
	source, err := Run(root, Options{FromSource: true})
	if err != nil {
		t.Fatal(err)
	}
	want := dumpUniverse(source.Universe)

	cold, err := Run(root, Options{StdCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if len(cold.std.std) < 50 {
		t.Fatalf("only %d standard library packages found in the load", len(cold.std.std))
	}
	// What the go build cache holds (as go list says, building nothing) comes from it, but
	// the seed's packages gengo processes fully; the comments of those whose comments gengo
	// reads are scanned from their files.
	cached := goBuildCached(t, root, "unicode/utf8", "errors", "time", "fmt")
	if !cached["unicode/utf8"] {
		t.Log("the go build cache does not hold unicode/utf8 as the load builds it: only the load from source is tested")
	}
	for path, inCache := range cached {
		wantGo := inCache && path != "time"
		if cold.std.fromGo[path] != wantGo {
			t.Errorf("with an empty std cache, %s from the go build cache: %t, want %t", path, cold.std.fromGo[path], wantGo)
		}
	}
	if cached["fmt"] && (!cold.std.fromScan["fmt"] || len(cold.std.comments["fmt"]) == 0) {
		t.Errorf("fmt's comments from its files: %t (%d groups), want true", cold.std.fromScan["fmt"], len(cold.std.comments["fmt"]))
	}
	if len(cold.std.fromExport) != len(cold.std.fromGo) {
		t.Errorf("an empty std cache gave %d packages", len(cold.std.fromExport)-len(cold.std.fromGo))
	}
	if touched := cold.StdTouched(); len(touched) != 0 {
		t.Errorf("StdTouched = %q after a load from the go build cache; stdSeed lacks them", touched)
	}
	if diff := cmp.Diff(want, dumpUniverse(cold.Universe)); diff != "" {
		t.Errorf("the universe differs with the go build cache's export data (-from source +export data):\n%s", diff)
	}
	cold.SaveStdCache()

	entry := readStdFile(cold.std.name)
	if entry == nil || len(entry.Packages) != len(cold.std.std) {
		t.Fatalf("the entry holds %v, want every one of the load's %d std packages", entry, len(cold.std.std))
	}
	// metav1.Time embeds time.Time, so gengo processes time fully; the universe holds types of
	// others (what time's and the base packages' methods name) and reads their comments.
	if !slices.Contains(entry.Source, "time") || slices.Contains(entry.Source, "unicode/utf8") {
		t.Errorf("Source = %q, want time and not unicode/utf8", entry.Source)
	}
	if len(entry.Comments) == 0 || slices.Contains(entry.Comments, "time") || slices.Contains(entry.Comments, "unicode/utf8") {
		t.Fatalf("Comments = %q, want packages, not time or unicode/utf8", entry.Comments)
	}
	held := entry.Comments[0]

	warm, err := Run(root, Options{StdCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if len(warm.std.fromGo) != 0 {
		t.Errorf("%d packages read from the go build cache with the entry warm", len(warm.std.fromGo))
	}
	if !warm.std.fromExport["unicode/utf8"] || warm.std.fromExport["time"] || !warm.std.fromExport[held] || warm.std.comments[held] == nil {
		t.Errorf("from export data: unicode/utf8 %t, time %t, %s %t (comments: %d); want true, false, true (some)", warm.std.fromExport["unicode/utf8"],
			warm.std.fromExport["time"], held, warm.std.fromExport[held], len(warm.std.comments[held]))
	}
	if touched := warm.StdTouched(); len(touched) != 0 {
		t.Errorf("StdTouched = %q after a load whose universe the cache made", touched)
	}
	if diff := cmp.Diff(want, dumpUniverse(warm.Universe)); diff != "" {
		t.Errorf("the universe differs with the std cache (-from source +cache):\n%s", diff)
	}
	// Processing a package read from export data is noticed, and so is reading the
	// declarations of one whose comments are not indexed.
	if err := warm.Require("unicode/utf8", held); err != nil {
		t.Fatal(err)
	}
	if touched := warm.StdTouched(); !slices.Contains(touched, held) || !slices.Contains(touched, "unicode/utf8") {
		t.Errorf("StdTouched = %q after unicode/utf8 and %s were processed", touched, held)
	}
	warm2, err := Run(root, Options{StdCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	delete(warm2.std.comments, held)
	if touched := warm2.StdTouched(); !slices.Contains(touched, held) {
		t.Errorf("StdTouched = %q, want %s, whose declarations the universe holds without its comments", touched, held)
	}

	// A file of errors that is not what it was: errors and what imports it do not come from
	// the entry (but from the go build cache, which says they have not changed).
	entry.Packages["errors"].Files[0].ModTime++
	if err := writeStdFile(cache.Dir, cold.std.name, entry); err != nil {
		t.Fatal(err)
	}
	stale, err := Run(root, Options{StdCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	fromEntry := func(r *Result, path string) bool { return r.std.fromExport[path] && !r.std.fromGo[path] }
	if fromEntry(stale, "errors") || fromEntry(stale, "io") || !fromEntry(stale, "unicode/utf8") || stale.std.fromGo["errors"] != cached["errors"] {
		t.Errorf("from the entry with errors stale: errors %t, io %t, unicode/utf8 %t, want false, false, true; errors from the go build cache %t, want %t",
			fromEntry(stale, "errors"), fromEntry(stale, "io"), fromEntry(stale, "unicode/utf8"), stale.std.fromGo["errors"], cached["errors"])
	}
	if diff := cmp.Diff(want, dumpUniverse(stale.Universe)); diff != "" {
		t.Errorf("the universe differs with a stale entry (-from source +cache):\n%s", diff)
	}
	stale.SaveStdCache() // writes errors' entry again
	if e := readStdFile(cold.std.name); e == nil || !slices.Equal(e.Packages["errors"].Files, stale.std.stamps["errors"]) {
		t.Error("the stale package's entry was not written again")
	}

	// A damaged entry is no entry.
	data, err := os.ReadFile(cold.std.name)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(cold.std.name, data, 0o600); err != nil {
		t.Fatal(err)
	}
	damaged, err := Run(root, Options{StdCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(damaged.std.fromExport) - len(damaged.std.fromGo); n != 0 {
		t.Errorf("%d packages read from a damaged entry", n)
	}
	if diff := cmp.Diff(want, dumpUniverse(damaged.Universe)); diff != "" {
		t.Errorf("the universe differs with a damaged entry (-from source +cache):\n%s", diff)
	}
}

// TestStdCacheRunsAtOnce: two loads at once in one process (the command driven as a library,
// tests side by side), from source, with one std cache: each builds its universe (gengo's
// builtin types, which every universe shares, are written under universeMu) and each writes a
// whole entry, and no temporary file is left.
func TestStdCacheRunsAtOnce(t *testing.T) {
	cache := &StdCache{Dir: t.TempDir(), Identity: "TestStdCacheRunsAtOnce"}
	const root = "testdata/project"
	results := make([]*Result, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() {
			if results[i], errs[i] = Run(root, Options{StdCache: cache, FromSource: true}); errs[i] == nil {
				results[i].SaveStdCache()
			}
		})
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
	r := results[0]
	if e := readStdFile(r.std.name); e == nil || slices.ContainsFunc(slices.Collect(maps.Keys(r.std.std)), func(path string) bool {
		_, ok := e.Packages[path]
		return !ok
	}) {
		t.Error("concurrent runs left no whole entry")
	}
	if tmp, _ := filepath.Glob(filepath.Join(cache.Dir, atomicfile.TempPrefix+"*")); len(tmp) > 0 {
		t.Errorf("temporary files left: %q", tmp)
	}
}

// TestStdCacheGoQuery: a run whose entry lacks a package (errors') asks the go command in the
// background for that package and those whose entries it makes stale (its importers), not for
// the rest, reads it from the go build cache, and builds the universe the first run built.
func TestStdCacheGoQuery(t *testing.T) {
	const root = "testdata/project"
	if !goBuildCached(t, root, "errors")["errors"] {
		t.Skip("the go build cache does not hold errors as the load builds it")
	}
	cache := &StdCache{Dir: t.TempDir(), Identity: "TestStdCacheGoQuery"}
	first, err := Run(root, Options{StdCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	first.SaveStdCache()
	entry := readStdFile(first.std.name)
	if entry == nil || entry.Packages["errors"].Export == nil {
		t.Fatal("the first run wrote no entry holding errors")
	}
	delete(entry.Packages, "errors")
	if err := writeStdFile(cache.Dir, first.std.name, entry); err != nil {
		t.Fatal(err)
	}
	other, err := Run(root, Options{StdCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if other.std.goq == nil || !other.std.goq.asked["errors"] || other.std.goq.asked["unicode/utf8"] || !other.std.fromGo["errors"] || other.std.fromGo["unicode/utf8"] {
		t.Error("with errors gone from the entry, the go command was not asked for errors (and not for unicode/utf8)")
	}
	if diff := cmp.Diff(dumpUniverse(first.Universe), dumpUniverse(other.Universe)); diff != "" {
		t.Errorf("the universe differs with errors gone from the entry (-first run +second):\n%s", diff)
	}
}

// TestStdCacheStaleGoCache: with a go build cache that does not hold the standard library (a
// cleaned or new GOCACHE), a load with an empty std cache takes the standard library from
// source, builds the universe a load from source builds, and leaves the go build cache
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
	r.SaveStdCache()
	if e := readStdFile(r.std.name); e == nil || len(e.Packages) != len(r.std.std) {
		t.Error("the load from source wrote no whole entry")
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

// TestLoadAgain: a cold load that read a package from the go build cache that gengo then
// processed fully (time, once the seed forgets it) is done again by Run with Options.Previous with that
// package from source and the rest of the standard library from the export data the first
// load found, without asking the go command again; the universe is the one from source and
// the load reads no more than it was given.
func TestLoadAgain(t *testing.T) {
	if testing.Short() {
		t.Skip("loads cold and again, reading export data as TestStdCacheColdListsOnce does in -short mode")
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
	if again.std.fromExport["time"] || len(again.std.fromGo) == 0 || len(again.std.fromGo) != len(first.std.fromGo)-1 {
		t.Errorf("the load done again read time from export data: %t, %d packages from the go build cache, want false, %d",
			again.std.fromExport["time"], len(again.std.fromGo), len(first.std.fromGo)-1)
	}
	if first.std.goq == nil || again.std.goq != first.std.goq {
		t.Error("the load done again asked the go command again")
	}
	if diff := cmp.Diff(dumpUniverse(source.Universe), dumpUniverse(again.Universe)); diff != "" {
		t.Errorf("the universe differs after the load done again (-from source +again):\n%s", diff)
	}
	again.SaveStdCache()
	if e := readStdFile(again.std.name); e == nil || !slices.Contains(e.Source, "time") {
		t.Error("the entry written after the load done again does not take time from source")
	}
}

// TestPrepareStdCache: PrepareStdCache encodes, in the background, the export data of every
// package a cold load read from the go build cache or checked from source, and the entry
// SaveStdCache then writes is the one it writes without it.
func TestPrepareStdCache(t *testing.T) {
	if testing.Short() {
		t.Skip("loads cold twice; the pipeline's TestRunsAtOnce encodes in the background in -short mode")
	}
	const root = "testdata/project"
	entries := map[bool]*stdFile{}
	for _, prepare := range []bool{false, true} {
		cache := &StdCache{Dir: t.TempDir(), Identity: "TestPrepareStdCache"}
		r, err := Run(root, Options{StdCache: cache})
		if err != nil {
			t.Fatal(err)
		}
		if prepare {
			r.PrepareStdCache()
			if r.std.encoded == nil {
				t.Fatal("PrepareStdCache encoded nothing on a cold load")
			}
			<-r.std.encoded
			want := len(r.std.fromGo) + len(r.std.syntaxComments)
			if len(r.std.exports) != want {
				t.Errorf("PrepareStdCache encoded %d packages, want %d", len(r.std.exports), want)
			}
		}
		r.SaveStdCache()
		if entries[prepare] = readStdFile(r.std.name); entries[prepare] == nil {
			t.Fatal("no entry written")
		}
	}
	if diff := cmp.Diff(entries[false], entries[true]); diff != "" {
		t.Errorf("the entry differs when prepared (-without +with):\n%s", diff)
	}
}

// TestStdCacheSeedKept: the entry written by a run of a project with no API types (apigen
// init's: the project package pkg/apis and nothing else) is not typed, and a load that reads it decides with the seed's lists too, so that
// the first load of a project with API types does not read too little (time, which
// metav1.Time makes gengo process fully); the entry that load writes is typed and holds what
// the project needs, not the seed (math/big, which only API types with a resource.Quantity
// make gengo process fully, stays out of Source, so warm loads read it from the entry).
func TestStdCacheSeedKept(t *testing.T) {
	// apigen init's project: the project package, pkg/apis, and no API types.
	initProject := t.TempDir()
	if err := os.CopyFS(initProject, os.DirFS("testdata/empty")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(initProject, "pkg/apis"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(initProject, "pkg/apis/doc.go"), []byte("// +apigen:domain=example.com\npackage apis\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := &StdCache{Dir: t.TempDir(), Identity: "TestStdCacheSeedKept"}
	empty, err := Run(initProject, Options{StdCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	empty.SaveStdCache()
	if len(empty.APIPackages) == 0 {
		t.Fatal("apigen init's project has no API package")
	}
	entry := readStdFile(empty.std.name)
	if entry == nil || entry.Typed {
		t.Fatalf("the entry of a project without API types: written %t, typed %t; want one not typed", entry != nil, entry != nil && entry.Typed)
	}
	r, err := Run("testdata/project", Options{StdCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if r.std.entry == nil || len(r.std.fromExport) == 0 {
		t.Fatal("the project's load read nothing of the entry")
	}
	if touched := r.StdTouched(); len(touched) != 0 {
		t.Errorf("StdTouched = %q with the entry of a project without API types", touched)
	}
	r.SaveStdCache()
	if entry = readStdFile(r.std.name); entry == nil || !entry.Typed || slices.Contains(entry.Source, "math/big") {
		t.Fatalf("the entry the project wrote: typed %t, Source %q; want typed, without math/big", entry != nil && entry.Typed, entry.Source)
	}
	warm, err := Run("testdata/project", Options{StdCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if warm.std.std["math/big"] != nil && !warm.std.fromExport["math/big"] {
		t.Error("a warm load took math/big from source")
	}
	if touched := warm.StdTouched(); len(touched) != 0 {
		t.Errorf("StdTouched = %q on a warm load", touched)
	}
}

// TestStdCacheColdListsOnce: a load with no entry of its binary asks the go
// command about the go build cache's export data in the load's own go list, not in a second
// one beside it, and reads the standard library from the files it names.
func TestStdCacheColdListsOnce(t *testing.T) {
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

	r, err := Run(root, Options{StdCache: &StdCache{Dir: t.TempDir(), Identity: "TestStdCacheColdListsOnce"}})
	if err != nil {
		t.Fatal(err)
	}
	if !r.std.fromGo["errors"] {
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
