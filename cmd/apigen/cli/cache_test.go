package cli

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apigen-dev/apigen/generators/pipeline"
	"github.com/apigen-dev/apigen/internal/runcache"
)

// isolateCache gives the test an empty result cache of its own, so that it neither reads nor
// writes the user's; where XDG_CACHE_HOME does not decide the user cache directory, it turns
// the cache off instead and reports false. The go command's build cache, which lives in the
// same directory by default, stays where it is: an empty one makes every load minutes long.
func isolateCache(t *testing.T) bool {
	t.Helper()
	t.Setenv("GOCACHE", goCache())
	xdg := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", xdg)
	t.Setenv("APIGEN_CACHE", "")
	if dir, err := runcache.DefaultDir(); err != nil || !strings.HasPrefix(dir, xdg) {
		t.Setenv("APIGEN_CACHE", "off")
		return false
	}
	return true
}

var goCache = sync.OnceValue(func() string {
	out, _ := exec.Command("go", "env", "GOCACHE").Output()
	return strings.TrimSpace(string(out))
})

// cachedWardle is wardleCopy for tests of the cache: it skips where the cache cannot be
// isolated, and keeps a go.work or go/packages driver of the machine's from turning it off.
func cachedWardle(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("loads a whole project")
	}
	dir := wardleCopy(t)
	if os.Getenv("APIGEN_CACHE") == "off" {
		t.Skip("XDG_CACHE_HOME does not choose the user cache directory here")
	}
	t.Setenv("GOWORK", "off")
	t.Setenv("GOPACKAGESDRIVER", "off")
	return dir
}

// probe looks the run with the given flags up in the cache, without running it.
func probe(t *testing.T, f generateFlags) (hit bool, log string) {
	t.Helper()
	root, err := pipeline.FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	_, _, hit = openCache(root, &f, &b)
	return hit, b.String()
}

var timing = regexp.MustCompile(` in [0-9.]+s\n$`)

func TestVerifyCache(t *testing.T) {
	dir := cachedWardle(t)

	if code, out, errOut := run("verify", "-v"); code != 0 || out != "" || errOut != "apigen: cache miss: no success recorded for these inputs\n" {
		t.Fatalf("first verify: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, out, errOut := run("verify", "-v"); code != 0 || out != "" || errOut != "apigen: cache hit\n" {
		t.Fatalf("second verify: exit %d, stdout %q, stderr %q; want a hit", code, out, errOut)
	}
	if code, out, errOut := run("verify"); code != 0 || out != "" || errOut != "" {
		t.Fatalf("verify on a hit: exit %d, stdout %q, stderr %q; want 0 and silence", code, out, errOut)
	}

	// generate on a hit says what a generate that loads says: every file unchanged.
	code, hitOut, errOut := run("generate", "-v")
	if code != 0 || errOut != "apigen: cache hit\n" {
		t.Fatalf("generate on a hit: exit %d, stderr %q", code, errOut)
	}
	code, loadOut, errOut := run("generate", "-v", "--no-cache")
	if code != 0 || errOut != "apigen: cache miss: disabled by --no-cache\n" {
		t.Fatalf("generate --no-cache: exit %d, stderr %q", code, errOut)
	}
	if timing.ReplaceAllString(hitOut, "") != timing.ReplaceAllString(loadOut, "") || !regexp.MustCompile(` 0 written, \d+ unchanged, 0 deleted`).MatchString(hitOut) {
		t.Errorf("generate on a hit printed\n%s\na generate that loads printed\n%s", hitOut, loadOut)
	}

	// New times on unchanged files still hit.
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, name := range []string{"pkg/apis/wardle/v1alpha1/flunder_types.go", "pkg/apis/wardle/v1alpha1/zz_generated.deepcopy.go", "go.mod"} {
		if err := os.Chtimes(filepath.Join(dir, name), old, old); err != nil {
			t.Fatal(err)
		}
	}
	if hit, log := probe(t, generateFlags{}); !hit {
		t.Fatalf("after touching files: %s", log)
	}

	// One byte of any input makes a miss; putting it back hits again.
	for _, name := range []string{
		"pkg/apis/wardle/v1alpha1/flunder_types.go",
		"pkg/apis/wardle/v1alpha1/flunder_hooks.go",
		"pkg/apis/wardle/v1alpha1/doc.go",
		"pkg/apis/wardle/v1alpha1/zz_generated.deepcopy.go",
		"pkg/cmd/server/zz_generated.server.go",
		"config/generated/rbac.yaml",
		"go.mod",
		"go.sum",
		"hack/boilerplate.go.txt",
	} {
		path := filepath.Join(dir, name)
		orig, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		changed := []byte(string(orig))
		changed[len(changed)/2] ^= 1
		if err := os.WriteFile(path, changed, 0o644); err != nil {
			t.Fatal(err)
		}
		if hit, _ := probe(t, generateFlags{}); hit {
			t.Errorf("a hit after changing a byte of %s", name)
		}
		if err := os.WriteFile(path, orig, 0o644); err != nil {
			t.Fatal(err)
		}
		if hit, log := probe(t, generateFlags{}); !hit {
			t.Errorf("no hit after restoring %s: %s", name, log)
		}
	}
	// So do a new file, and a missing generated file.
	extra := filepath.Join(dir, "pkg/apis/wardle/v1alpha1/extra.go")
	if err := os.WriteFile(extra, []byte("package v1alpha1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if hit, _ := probe(t, generateFlags{}); hit {
		t.Error("a hit after adding a Go file")
	}
	if err := os.Remove(extra); err != nil {
		t.Fatal(err)
	}
	register := filepath.Join(dir, "pkg/apis/wardle/v1alpha1/zz_generated.register.go")
	if err := os.Rename(register, register+".moved"); err != nil {
		t.Fatal(err)
	}
	if hit, _ := probe(t, generateFlags{}); hit {
		t.Error("a hit with a generated file missing")
	}
	if err := os.Rename(register+".moved", register); err != nil {
		t.Fatal(err)
	}

	// So does a kubebuilder PROJECT file, which moves where the API types are read.
	project := filepath.Join(dir, "PROJECT")
	if err := os.WriteFile(project, []byte("layout:\n- go.kubebuilder.io/v4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if hit, _ := probe(t, generateFlags{}); hit {
		t.Error("a hit after adding a PROJECT file")
	}
	if err := os.Remove(project); err != nil {
		t.Fatal(err)
	}

	// Flags that change the output are part of the key.
	for _, f := range []generateFlags{
		{year: "2031"},
		{headerFile: "hack/boilerplate.go.txt"},
		{headerFile: filepath.Join(dir, "hack/boilerplate.go.txt")},
	} {
		if hit, _ := probe(t, f); hit {
			t.Errorf("a hit with flags %+v", f)
		}
	}

	// Both switches turn the cache off.
	if hit, log := probe(t, generateFlags{noCache: true}); hit || log != "apigen: cache miss: disabled by --no-cache\n" {
		t.Errorf("--no-cache: hit %t, %q", hit, log)
	}
	t.Setenv("APIGEN_CACHE", "off")
	if hit, log := probe(t, generateFlags{}); hit || log != "apigen: cache miss: disabled by APIGEN_CACHE=off\n" {
		t.Errorf("APIGEN_CACHE=off: hit %t, %q", hit, log)
	}
	t.Setenv("APIGEN_CACHE", "")
	if hit, log := probe(t, generateFlags{}); !hit {
		t.Errorf("no hit after all: %s", log)
	}
}

// TestFailedVerifyIsNotCached: a stale tree fails every time, and the generate that fixes it
// leaves a verify that hits.
func TestFailedVerifyIsNotCached(t *testing.T) {
	dir := cachedWardle(t)
	// The field goes into both versions, so that conversion-gen converts it: in one version
	// only, generate would warn that the hand-written conversion loses it, and a run that warns
	// is not recorded.
	for _, version := range []string{"v1alpha1", "v1beta1"} {
		types := filepath.Join(dir, "pkg/apis/wardle", version, "flunder_types.go")
		src, _ := os.ReadFile(types)
		edited := strings.Replace(string(src), "type FlunderSpec struct {", "type FlunderSpec struct {\n\t// Size is new.\n\tSize *int32 `json:\"size,omitempty\"`\n", 1)
		if err := os.WriteFile(types, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 2 {
		code, out, errOut := run("verify", "-v")
		if code != 1 || !strings.Contains(out, "Size") || !strings.HasPrefix(errOut, "apigen: cache miss: no success recorded") {
			t.Fatalf("verify %d on a stale tree: exit %d\nstdout:\n%s\nstderr:\n%s", i+1, code, out, errOut)
		}
	}
	// Each version's deepcopy, apply configuration, protobuf methods and generated.proto, and
	// the conversions, OpenAPI, the kind's schema, the apply configurations' schema and the
	// reference see the new field.
	if code, out, errOut := run("generate"); code != 0 || !strings.HasPrefix(out, "apigen: 13 written") {
		t.Fatalf("generate: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, out, errOut := run("verify", "-v"); code != 0 || out != "" || errOut != "apigen: cache hit\n" {
		t.Fatalf("verify after generate: exit %d, stdout %q, stderr %q; want a hit", code, out, errOut)
	}
}

// TestUnwritableCache: a cache that cannot be written costs the run nothing but the cache.
func TestUnwritableCache(t *testing.T) {
	cachedWardle(t)
	file := filepath.Join(t.TempDir(), "not-a-directory")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CACHE_HOME", file)
	code, out, errOut := run("verify", "-v")
	if code != 0 || out != "" || !strings.Contains(errOut, "apigen: cache not written: ") {
		t.Fatalf("verify with an unwritable cache: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if hit, _ := probe(t, generateFlags{}); hit {
		t.Error("a hit from an unwritable cache")
	}
}

// TestCacheKeyHoldsEveryFileTheRunReads asks the file system, not apigen, which of the
// project's files a run reads (by their access times), and changes each in turn: every one
// must make the next run miss. So a file a new version of apigen comes to read cannot be left
// out of the key: the key's inputs are what the run read (loader.Reads) and what the module's
// fingerprint hashes, never a list of names. The project has a PROJECT file without a layout,
// which apigen reads and ignores, as an input that is neither Go nor generated.
func TestCacheKeyHoldsEveryFileTheRunReads(t *testing.T) {
	dir := cachedWardle(t)
	if err := os.WriteFile(filepath.Join(dir, "PROJECT"), []byte("domain: example.com\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		files = append(files, path)
		return os.Chtimes(path, old, old)
	})
	if err != nil {
		t.Fatal(err)
	}
	if !accessTimesWork(t, filepath.Join(dir, "go.mod")) {
		t.Skip("this file system does not update access times")
	}
	if err := os.Chtimes(filepath.Join(dir, "go.mod"), old, old); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := run("verify", "-v"); code != 0 || !strings.HasPrefix(errOut, "apigen: cache miss: no success recorded") {
		t.Fatalf("verify: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	var read []string
	for _, path := range files {
		if accessed(t, path).After(old) {
			rel, _ := filepath.Rel(dir, path)
			read = append(read, filepath.ToSlash(rel))
		}
	}
	for _, want := range []string{"go.mod", "PROJECT", "hack/boilerplate.go.txt", "pkg/apis/wardle/v1alpha1/flunder_types.go"} {
		if !slices.Contains(read, want) {
			t.Fatalf("the run read %q, not %s: the access times do not tell what it reads", read, want)
		}
	}
	if hit, log := probe(t, generateFlags{}); !hit {
		t.Fatalf("no hit after the verify: %s", log)
	}
	for _, rel := range read {
		path := filepath.Join(dir, filepath.FromSlash(rel))
		orig, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(slices.Clone(orig), '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		if hit, _ := probe(t, generateFlags{}); hit {
			t.Errorf("the run reads %s, and changing it still hits", rel)
		}
		if err := os.WriteFile(path, orig, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if hit, log := probe(t, generateFlags{}); !hit {
		t.Errorf("no hit with every file restored: %s", log)
	}
}

// accessTimesWork reports whether reading the file at name (whose access time is old) moves its
// access time, as Linux's default relatime does for a time more than a day old.
func accessTimesWork(t *testing.T, name string) bool {
	t.Helper()
	before := accessed(t, name)
	if _, err := os.ReadFile(name); err != nil {
		t.Fatal(err)
	}
	return accessed(t, name).After(before)
}

// TestCacheSeesStaleFilesUnderTheLayout: in kubebuilder's apis/ layout, a generated file
// apigen no longer produces is deleted, and one that appears later (here a Markdown file that
// turns into apigen's own, as a checkout of an old commit can make it) is never hidden by a
// hit: the run read it, and its entry checks it, wherever the layout put it.
func TestCacheSeesStaleFilesUnderTheLayout(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a whole project")
	}
	src := filepath.Join("..", "..", "..", "testdata", "stale", "kubebuilder_apis")
	files := map[string]string{"apis/toys/v1/notes.md": "# Notes\n"}
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "deleted.txt" {
			return err
		}
		rel, err := filepath.Rel(src, path)
		files[filepath.ToSlash(rel)] = readTestFile(t, path)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := moduleCopy(t, files)
	if os.Getenv("APIGEN_CACHE") == "off" {
		t.Skip("XDG_CACHE_HOME does not choose the user cache directory here")
	}
	t.Setenv("GOWORK", "off")
	t.Setenv("GOPACKAGESDRIVER", "off")

	if code, out, errOut := run("generate", "-v"); code != 0 || !strings.Contains(out, "deleted   apis/toys/v1/zz_generated.register.go\n") {
		t.Fatalf("generate: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if hit, log := probe(t, generateFlags{}); !hit {
		t.Fatalf("no hit after generate: %s", log)
	}
	notes := filepath.Join(dir, "apis/toys/v1/notes.md")
	if err := os.WriteFile(notes, []byte("<!-- Code generated by apigen. DO NOT EDIT. -->\n# Notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if hit, _ := probe(t, generateFlags{}); hit {
		t.Fatal("a hit with a stale generated file under apis/")
	}
	if code, out, errOut := run("verify"); code != 1 || !strings.Contains(out, "stale: apis/toys/v1/notes.md") {
		t.Fatalf("verify: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if code, out, errOut := run("generate", "-v"); code != 0 || !strings.Contains(out, "deleted   apis/toys/v1/notes.md\n") {
		t.Fatalf("generate: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if code, out, errOut := run("verify", "-v"); code != 0 || errOut != "apigen: cache hit\n" {
		t.Fatalf("verify after generate: exit %d, stdout %q, stderr %q; want a hit", code, out, errOut)
	}
}
