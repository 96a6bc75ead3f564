package loader

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestAssumeGoListCompiledFalse: the load's go list works out no compiled files
// (notCompiled): with the standard library's types from export data, net, a cgo package, is
// listed with its Go files, not with what cgo makes of them.
func TestAssumeGoListCompiledFalse(t *testing.T) {
	if testing.Short() {
		t.Skip("loads from export data, as TestStdCacheListsOnce does in -short mode")
	}
	if !cgoOn(t) {
		t.Skip("cgo is off: net's compiled files are its Go files anyway")
	}
	cache := &StdCache{Dir: t.TempDir(), Identity: "TestAssumeGoListCompiledFalse"}
	r, err := Run("testdata/project", Options{StdCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	net := r.std.std["net"]
	if net == nil {
		t.Fatal("net is not in testdata/project's graph")
	}
	if !slices.Equal(net.CompiledGoFiles, net.GoFiles) {
		t.Errorf("net, from export data, was listed with compiled files %q", cgoOutput(net))
	}
	if len(net.Syntax) > 0 {
		t.Errorf("net was checked from source (no export data in the go build cache?)")
	}
}

// TestAssumeGoListExportBuildsNothing: go list -export -n names the export data the go build
// cache holds and compiles nothing: with an empty go build cache it names none, and leaves the
// cache as empty as it found it; with the go build cache the tests run with, a package the
// cache holds is named with a file whose export data reads. go list takes a flag's last value
// (notCompiled after go/packages' -compiled).
func TestAssumeGoListExportBuildsNothing(t *testing.T) {
	const root = "testdata/project"
	t.Run("last flag wins", func(t *testing.T) {
		count := func(flags ...string) string {
			args := append([]string{"list"}, flags...)
			cmd := exec.Command("go", append(args, "-f", "{{len .CompiledGoFiles}}", "errors")...)
			cmd.Dir = root
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("go %s: %v", strings.Join(cmd.Args[1:], " "), err)
			}
			return strings.TrimSpace(string(out))
		}
		if n := count("-compiled=true"); n == "0" {
			t.Fatal("go list -compiled=true lists no compiled files of errors")
		}
		if n := count("-compiled=true", notCompiled); n != "0" {
			t.Errorf("go list -compiled=true %s lists %s compiled files of errors, want none", notCompiled, n)
		}
	})
	t.Run("cached", func(t *testing.T) {
		if !goBuildCached(t, root, "errors")["errors"] {
			t.Skip("the go build cache does not hold errors as the load builds it")
		}
		name := goExportData(root, []string{"errors"})["errors"]
		if name == "" {
			t.Fatal("go list -export -n names no export data of errors, which the go build cache holds")
		}
		data, err := readExportFile(name)
		if err != nil || len(data) == 0 {
			t.Fatalf("the export data go list names for errors does not read: %v", err)
		}
	})
	t.Run("empty go build cache", func(t *testing.T) {
		t.Setenv("GOCACHE", t.TempDir())
		if export := goExportData(root, []string{"errors", "unicode/utf8"}); len(export) != 0 {
			t.Errorf("go list -export -n names export data in an empty go build cache: %v", export)
		}
		for path, inCache := range goBuildCached(t, root, "errors", "unicode/utf8") {
			if inCache {
				t.Errorf("go list -export -n built %s into the empty go build cache", path)
			}
		}
	})
}
