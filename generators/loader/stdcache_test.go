package loader

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStdCache: a load fills the std cache, the next reads the standard library from it and
// builds the same universe; the packages the universe reads are taken from source; a
// package's entry is used only while its files, and its imports', are those it was checked
// from; a damaged entry is a load from source; reading more of a package than export data
// holds is noticed.
func TestStdCache(t *testing.T) {
	cache := &StdCache{Dir: t.TempDir(), Identity: "TestStdCache"}
	const root = "testdata/project"
	cold, err := load(root, false, cache, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(cold.std.fromExport) != 0 {
		t.Fatalf("an empty cache gave %d packages", len(cold.std.fromExport))
	}
	if len(cold.std.std) < 50 {
		t.Fatalf("only %d standard library packages found in the load", len(cold.std.std))
	}
	cold.SaveStdCache()
	want := dumpUniverse(cold.Universe)

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

	warm, err := load(root, false, cache, false)
	if err != nil {
		t.Fatal(err)
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
	warm2, err := load(root, false, cache, false)
	if err != nil {
		t.Fatal(err)
	}
	delete(warm2.std.comments, held)
	if touched := warm2.StdTouched(); !slices.Contains(touched, held) {
		t.Errorf("StdTouched = %q, want %s, whose declarations the universe holds without its comments", touched, held)
	}

	// A file of errors that is not what it was: errors and what imports it come from source.
	entry.Packages["errors"].Files[0].ModTime++
	if err := writeStdFile(cache.Dir, cold.std.name, entry); err != nil {
		t.Fatal(err)
	}
	stale, err := load(root, false, cache, false)
	if err != nil {
		t.Fatal(err)
	}
	if stale.std.fromExport["errors"] || stale.std.fromExport["io"] || !stale.std.fromExport["unicode/utf8"] {
		t.Errorf("from export data with errors stale: errors %t, io %t, unicode/utf8 %t; want false, false, true",
			stale.std.fromExport["errors"], stale.std.fromExport["io"], stale.std.fromExport["unicode/utf8"])
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
	damaged, err := load(root, false, cache, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(damaged.std.fromExport) != 0 {
		t.Errorf("%d packages read from a damaged entry", len(damaged.std.fromExport))
	}
	if diff := cmp.Diff(want, dumpUniverse(damaged.Universe)); diff != "" {
		t.Errorf("the universe differs with a damaged entry (-from source +cache):\n%s", diff)
	}

	// Runs at once each write a whole entry.
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r, err := load(root, false, cache, true); err == nil {
				r.SaveStdCache()
			}
		}()
	}
	wg.Wait()
	if e := readStdFile(cold.std.name); e == nil || len(e.Packages) != len(cold.std.std) {
		t.Error("concurrent runs left no whole entry")
	}
	if tmp, _ := filepath.Glob(filepath.Join(cache.Dir, ".tmp-*")); len(tmp) > 0 {
		t.Errorf("temporary files left: %q", tmp)
	}
}
