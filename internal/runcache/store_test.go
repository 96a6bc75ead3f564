package runcache

import (
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/apigen-dev/apigen/internal/atomicfile"
	"github.com/apigen-dev/apigen/internal/cachefile"
)

const key = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "apigen", "verify")
	s := NewStore(dir)
	if _, ok := s.Get(key); ok {
		t.Fatal("hit in an empty store")
	}
	paths := []string{"config/generated/rbac.yaml", "pkg/apis/g/v1/zz_generated.register.go"}
	inputs := map[string]string{"/home/u/my header.txt": "sha256 00ff", "/p/PROJECT": "absent"}
	if err := s.Put(key, Entry{Paths: paths, Inputs: inputs}); err != nil {
		t.Fatal(err)
	}
	got, ok := s.Get(key)
	if !ok || !slices.Equal(got.Paths, paths) || !maps.Equal(got.Inputs, inputs) {
		t.Fatalf("Get = %q, %t; want %q, true", got, ok, Entry{Paths: paths, Inputs: inputs})
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("cache directory: %v, %v; want mode 0700", fi.Mode(), err)
	}
	if err := s.Put(key+"0", Entry{}); err != nil {
		t.Fatal(err)
	}
	if got, ok := s.Get(key + "0"); !ok || len(got.Paths) != 0 || len(got.Inputs) != 0 {
		t.Errorf("an entry without paths: Get = %q, %t", got, ok)
	}
	list, _ := os.ReadDir(dir)
	for _, e := range list {
		if e.Name() != key && e.Name() != key+"0" && e.Name() != ".trimmed" {
			t.Errorf("stray file %s in the cache", e.Name())
		}
	}
}

func TestStoreIgnoresForeignEntries(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, key), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := NewStore(dir).Get(key); ok {
		t.Error("an empty file counts as an entry")
	}
}

func TestStoreUnwritable(t *testing.T) {
	// A file where the directory should be: Put fails even for root, Get misses, nothing panics.
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s := NewStore(filepath.Join(file, "apigen", "verify"))
	if err := s.Put(key, Entry{}); err == nil {
		t.Error("Put into an unwritable cache succeeded")
	}
	if _, ok := s.Get(key); ok {
		t.Error("hit in an unwritable cache")
	}
}

func TestStoreTrims(t *testing.T) {
	dir := t.TempDir()
	s := NewStore(dir)
	old := time.Now().Add(-cachefile.MaxAge - time.Hour)
	for _, name := range []string{key, atomicfile.TempPrefix + "123"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(header), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(filepath.Join(dir, name), old, old); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Put(key+"1", Entry{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{key, atomicfile.TempPrefix + "123"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("%s, unused for longer than %v, is still there", name, cachefile.MaxAge)
		}
	}
	if _, ok := s.Get(key + "1"); !ok {
		t.Error("trimming removed a fresh entry")
	}
}

func TestStoreRefreshesHits(t *testing.T) {
	dir := t.TempDir()
	s := NewStore(dir)
	if err := s.Put(key, Entry{}); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-48 * time.Hour)
	if err := os.Chtimes(filepath.Join(dir, key), old, old); err != nil {
		t.Fatal(err)
	}
	s.Get(key)
	if fi, _ := os.Stat(filepath.Join(dir, key)); time.Since(fi.ModTime()) > time.Hour {
		t.Error("a hit did not refresh the entry's time, so trimming would remove an entry in use")
	}
}

func TestDefaultDir(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("XDG_CACHE_HOME is the user cache directory on Linux and the BSDs")
	}
	xdg := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", xdg)
	dir, err := DefaultDir()
	if err != nil || dir != filepath.Join(xdg, "apigen", "verify") {
		t.Errorf("DefaultDir() = %q, %v", dir, err)
	}
}

// An entry is current while every input it records holds what the run read: a changed, an
// appeared or a vanished file makes it stale.
func TestEntryCurrent(t *testing.T) {
	dir := t.TempDir()
	header, project := filepath.Join(dir, "header.txt"), filepath.Join(dir, "PROJECT")
	if err := os.WriteFile(header, []byte("// header\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	facts := map[string]string{}
	for _, name := range []string{header, project} {
		fact, err := FileFact(name)
		if err != nil {
			t.Fatal(err)
		}
		facts[name] = fact
	}
	e := Entry{Inputs: facts}
	if got := e.Current(); got != "" {
		t.Fatalf("Current = %q on untouched inputs", got)
	}
	if err := os.WriteFile(header, []byte("// Header\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := e.Current(); got != header {
		t.Errorf("Current = %q after changing the header, want %q", got, header)
	}
	if err := os.WriteFile(header, []byte("// header\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(project, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := e.Current(); got != project {
		t.Errorf("Current = %q after creating a file the run found absent, want %q", got, project)
	}
}
