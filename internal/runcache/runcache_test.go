package runcache

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// module writes a small module to a temp dir and returns its root. The environment is pinned
// so that the go command sees no workspace, driver or GOFLAGS of the machine's.
func module(t *testing.T) string {
	t.Helper()
	t.Setenv("GOWORK", "")
	t.Setenv("GOFLAGS", "")
	t.Setenv("GOPACKAGESDRIVER", "off")
	t.Setenv("APIGEN_CACHE", "")
	root := t.TempDir()
	files := map[string]string{
		"go.mod":                          "module example.com/m\n\ngo 1.22\n",
		"go.sum":                          "example.com/x v1.0.0 h1:abc=\n",
		"README.md":                       "readme\n",
		"hack/boilerplate.go.txt":         "/* Copyright YEAR. */\n",
		"pkg/apis/g/v1/types.go":          "package v1\n\ntype Foo struct{}\n",
		"pkg/apis/g/v1/zz_generated.x.go": "package v1\n",
		"pkg/registry/_old/zz.go":         "package old\n",
		"internal/testdata/x.go":          "package x\n",
		"config/generated/rbac.yaml":      "kind: Role\n",
		"config/certs/ca.crt":             "cert\n",
		".git/HEAD":                       "ref: refs/heads/main\n",
		"nested/go.mod":                   "module example.com/nested\n",
		"nested/a.go":                     "package nested\n",
		// A module of its own inside the directories apigen generates into: neither the
		// load nor apigen's search for stale files enters it.
		"pkg/apis/vendored/go.mod": "module example.com/vendored\n",
		"pkg/apis/vendored/a.go":   "package vendored\n",
	}
	for name, content := range files {
		write(t, filepath.Join(root, name), content)
	}
	return root
}

func write(t *testing.T, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func take(t *testing.T, root string, facts map[string]string) *Snapshot {
	t.Helper()
	s, err := Take(root, facts)
	if err != nil {
		t.Fatalf("Take: %v", err)
	}
	return s
}

func TestKeyIgnoresTimesAndUnreadFiles(t *testing.T) {
	root := module(t)
	first := take(t, root, nil)
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, name := range []string{"pkg/apis/g/v1/types.go", "go.mod", "config/generated/rbac.yaml"} {
		if err := os.Chtimes(filepath.Join(root, name), old, old); err != nil {
			t.Fatal(err)
		}
	}
	if again := take(t, root, nil); again.Key != first.Key {
		t.Error("touching files without changing them changed the key")
	}
	// Neither the go command nor apigen reads these.
	write(t, filepath.Join(root, "README.md"), "changed\n")
	write(t, filepath.Join(root, "config/certs/ca.crt"), "another cert\n")
	write(t, filepath.Join(root, ".git/HEAD"), "ref: refs/heads/other\n")
	write(t, filepath.Join(root, ".apigen/etcd/db"), "state\n")
	write(t, filepath.Join(root, "nested/a.go"), "package nested // changed\n")
	write(t, filepath.Join(root, "nested/b.go"), "package nested\n")
	write(t, filepath.Join(root, "pkg/apis/vendored/a.go"), "package vendored // changed\n")
	// Nor do they read YAML by pattern: a run records the YAML it reads, and its entry
	// checks it (see TestEntryChecksWhatTheKeyDoesNotHash).
	write(t, filepath.Join(root, "config/generated/rbac.yaml"), "kind: Rolf\n")
	if again := take(t, root, nil); again.Key != first.Key {
		t.Error("changing files no run reads changed the key")
	}
}

func TestKeyCoversEveryInput(t *testing.T) {
	for name, change := range map[string]func(root string) map[string]string{
		"a byte of an API type": func(root string) map[string]string {
			write(t, filepath.Join(root, "pkg/apis/g/v1/types.go"), "package v1\n\ntype Fop struct{}\n")
			return nil
		},
		"a generated Go file": func(root string) map[string]string {
			write(t, filepath.Join(root, "pkg/apis/g/v1/zz_generated.x.go"), "package v1 \n")
			return nil
		},
		"go.mod": func(root string) map[string]string {
			write(t, filepath.Join(root, "go.mod"), "module example.com/m\n\ngo 1.23\n")
			return nil
		},
		"go.sum": func(root string) map[string]string {
			write(t, filepath.Join(root, "go.sum"), "example.com/x v1.0.0 h1:abd=\n")
			return nil
		},
		"Go under _ dir": func(root string) map[string]string {
			write(t, filepath.Join(root, "pkg/registry/_old/zz.go"), "package old2\n")
			return nil
		},
		"Go under testdata": func(root string) map[string]string {
			write(t, filepath.Join(root, "internal/testdata/x.go"), "package y\n")
			return nil
		},
		"a new file of any kind": func(root string) map[string]string {
			write(t, filepath.Join(root, "pkg/apis/g/v1/static.txt"), "embedded?\n")
			return nil
		},
		"a removed file": func(root string) map[string]string {
			if err := os.Remove(filepath.Join(root, "README.md")); err != nil {
				t.Fatal(err)
			}
			return nil
		},
		"a new nested module": func(root string) map[string]string {
			write(t, filepath.Join(root, "internal/go.mod"), "module example.com/internal\n")
			return nil
		},
		"a new symbolic link": func(root string) map[string]string {
			if err := os.Symlink("types.go", filepath.Join(root, "pkg/apis/g/v1/link.go")); err != nil {
				t.Skip(err)
			}
			return nil
		},
		"a fact": func(string) map[string]string { return map[string]string{"--year": "2031"} },
	} {
		t.Run(name, func(t *testing.T) {
			root := module(t)
			facts := map[string]string{"--year": "2030"}
			before := take(t, root, facts)
			if f := change(root); f != nil {
				facts = f
			}
			if after := take(t, root, facts); after.Key == before.Key {
				t.Error("the key did not change")
			}
		})
	}
}

func TestKeyCoversEnvironment(t *testing.T) {
	root := module(t)
	first := take(t, root, nil)
	t.Setenv("GOFLAGS", "-tags=foo")
	if take(t, root, nil).Key == first.Key {
		t.Error("GOFLAGS=-tags=foo did not change the key")
	}
	t.Setenv("GOFLAGS", "")
	t.Setenv("GODEBUG", "gotypesalias=0")
	if take(t, root, nil).Key == first.Key {
		t.Error("GODEBUG did not change the key")
	}
}

func TestKeyCoversRoot(t *testing.T) {
	a, b := module(t), module(t)
	if take(t, a, nil).Key == take(t, b, nil).Key {
		t.Error("two modules at different paths have one key")
	}
}

func TestBypass(t *testing.T) {
	for name, setup := range map[string]func(t *testing.T, root string){
		"APIGEN_CACHE=off": func(t *testing.T, root string) { t.Setenv("APIGEN_CACHE", "off") },
		"go.work": func(t *testing.T, root string) {
			write(t, filepath.Join(root, "go.work"), "go 1.22\n\nuse .\n")
		},
		"vendor": func(t *testing.T, root string) {
			write(t, filepath.Join(root, "vendor/modules.txt"), "")
		},
		"symlinked directory": func(t *testing.T, root string) {
			if err := os.Symlink(filepath.Join(root, "pkg/apis/g/v1"), filepath.Join(root, "pkg/apis/g/v2")); err != nil {
				t.Skip(err)
			}
		},
		"GOPACKAGESDRIVER": func(t *testing.T, root string) { t.Setenv("GOPACKAGESDRIVER", "/bin/true") },
		"GOFLAGS -modfile": func(t *testing.T, root string) { t.Setenv("GOFLAGS", "-modfile="+filepath.Join(root, "alt.mod")) },
		"GOFLAGS -overlay": func(t *testing.T, root string) { t.Setenv("GOFLAGS", "-overlay="+filepath.Join(root, "overlay.json")) },
	} {
		t.Run(name, func(t *testing.T) {
			root := module(t)
			setup(t, root)
			_, err := Take(root, nil)
			var b *Bypass
			if !errors.As(err, &b) {
				t.Fatalf("Take: %v, want a Bypass", err)
			}
			t.Log(b.Reason)
		})
	}
}

func TestKeyCoversLocalReplacements(t *testing.T) {
	root := module(t)
	lib := filepath.Join(t.TempDir(), "lib")
	write(t, filepath.Join(lib, "go.mod"), "module example.com/lib\n\ngo 1.22\n")
	write(t, filepath.Join(lib, "lib.go"), "package lib\n")
	write(t, filepath.Join(lib, "vendor/modules.txt"), "") // not the main module's: no bypass
	write(t, filepath.Join(root, "go.mod"), "module example.com/m\n\ngo 1.22\n\nrequire example.com/lib v0.0.0\n\nreplace example.com/lib => "+lib+"\n")
	first := take(t, root, nil)
	for name, content := range map[string]string{"lib.go": "package lib2\n", "go.mod": "module example.com/lib\n\ngo 1.23\n"} {
		orig, _ := os.ReadFile(filepath.Join(lib, name))
		write(t, filepath.Join(lib, name), content)
		if take(t, root, nil).Key == first.Key {
			t.Errorf("changing the replacement's %s did not change the key", name)
		}
		write(t, filepath.Join(lib, name), string(orig))
	}
	if take(t, root, nil).Key != first.Key {
		t.Error("the key changed")
	}
}

func TestGoWorkOff(t *testing.T) {
	root := module(t)
	write(t, filepath.Join(root, "go.work"), "go 1.22\n\nuse .\n")
	t.Setenv("GOWORK", "off")
	take(t, root, nil)
}

func TestSameExcept(t *testing.T) {
	root := module(t)
	before := take(t, root, nil)
	// What a generate does: rewrite one file, write one in a new directory, delete another.
	write(t, filepath.Join(root, "pkg/apis/g/v1/zz_generated.x.go"), "package v1 // new\n")
	write(t, filepath.Join(root, "pkg/registry/g/foo/zz_generated.storage.go"), "package foo\n")
	if err := os.Remove(filepath.Join(root, "config/generated/rbac.yaml")); err != nil {
		t.Fatal(err)
	}
	written := []string{"pkg/apis/g/v1/zz_generated.x.go", "pkg/registry/g/foo/zz_generated.storage.go", "config/generated/rbac.yaml"}
	after := take(t, root, nil)
	if !before.SameExcept(after, written) {
		t.Error("the run's own writes count as a change")
	}
	if before.SameExcept(after, written[1:]) {
		t.Error("a write outside the given paths went unnoticed")
	}
	write(t, filepath.Join(root, "pkg/apis/g/v1/types.go"), "package v1\n\ntype Bar struct{}\n")
	if before.SameExcept(take(t, root, nil), written) {
		t.Error("an edit of an input during the run went unnoticed")
	}
}

func TestHolds(t *testing.T) {
	root := module(t)
	s := take(t, root, nil)
	if !s.Holds("pkg/apis/g/v1/zz_generated.x.go", []byte("package v1\n")) {
		t.Error("Holds: false for a hashed file with that content")
	}
	if s.Holds("pkg/apis/g/v1/zz_generated.x.go", []byte("package v2\n")) {
		t.Error("Holds: true for other content")
	}
	if s.Holds("config/generated/rbac.yaml", []byte("kind: Role\n")) {
		t.Error("Holds: true for a file the key does not hash")
	}
	if s.Holds("pkg/apis/g/v1/zz_generated.missing.go", nil) {
		t.Error("Holds: true for a missing file")
	}
}

// Inputs leaves out what the key holds (hashed files of the module, the toolchain's and the
// module cache's files) and keeps every other file the run read, with what it held, so that
// a file read for the first time by a new version of apigen is checked without being listed.
func TestInputs(t *testing.T) {
	root := module(t)
	s := take(t, root, nil)
	goroot := s.entries["meta/go env/GOROOT"]
	outside := filepath.Join(t.TempDir(), "header.txt")
	write(t, outside, "/* header */\n")
	reads := map[string]string{
		filepath.Join(root, "pkg/apis/g/v1/types.go"):                "sha256 11",
		filepath.Join(root, "go.mod"):                                "",
		filepath.Join(goroot, "src/fmt/print.go"):                    "",
		filepath.Join(s.entries["meta/go env/GOCACHE"], "1c/1c31-d"): "",
		filepath.Join(root, "PROJECT"):                               "absent",
		filepath.Join(root, "hack/boilerplate.go.txt"):               "sha256 22",
		filepath.Join(root, "nested/a.go"):                           "",
		outside:                                                      "",
		filepath.Join(root, "config/certs/ca.crt"):                   "sha256 33",
	}
	got, err := s.Inputs(reads)
	if err != nil {
		t.Fatal(err)
	}
	header, _ := FileFact(outside)
	nested, _ := FileFact(filepath.Join(root, "nested/a.go"))
	want := map[string]string{
		filepath.Join(root, "PROJECT"):                 "absent",
		filepath.Join(root, "hack/boilerplate.go.txt"): "sha256 22",
		filepath.Join(root, "nested/a.go"):             nested,
		outside:                                        header,
		filepath.Join(root, "config/certs/ca.crt"):     "sha256 33",
	}
	if len(got) != len(want) {
		t.Errorf("Inputs = %q, want %q", got, want)
	}
	for name, fact := range want {
		if got[name] != fact {
			t.Errorf("Inputs[%s] = %q, want %q", name, got[name], fact)
		}
	}
	if _, err := s.Inputs(map[string]string{outside: "changed during the run"}); err == nil {
		t.Error("Inputs accepted a file that changed during the run")
	}
}

// TestEntryChecksWhatTheKeyDoesNotHash: the key holds no YAML or Markdown, wherever it lies;
// a run records those it read (the output it compared, and what its search for stale files
// looked into, in the directories the project's layout gives it: kubebuilder's apis/ as well
// as pkg), and its entry stops hitting as soon as one of them holds something else. So a file
// under apis/ that has become a stale generated one is never hidden by a hit.
func TestEntryChecksWhatTheKeyDoesNotHash(t *testing.T) {
	root := module(t)
	notes := filepath.Join(root, "apis/g/v1/notes.yaml")
	write(t, notes, "kind: Notes\n")
	rbac := filepath.Join(root, "config/generated/rbac.yaml")
	s := take(t, root, nil)
	inputs, err := s.Inputs(map[string]string{
		filepath.Join(root, "apis/g/v1/zz_generated.x.go"): "absent",
		notes: Fact([]byte("kind: Notes\n")),
		rbac:  Fact([]byte("kind: Role\n")),
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{notes, rbac} {
		if _, ok := inputs[name]; !ok {
			t.Errorf("Inputs leaves out %s, which the key does not hash", name)
		}
	}
	store := NewStore(t.TempDir())
	if err := store.Put(s.Key, Entry{Inputs: inputs}); err != nil {
		t.Fatal(err)
	}
	e, ok := store.Get(s.Key)
	if !ok {
		t.Fatal("no entry")
	}
	if changed := e.Current(); changed != "" {
		t.Fatalf("Current = %q on the tree the run read", changed)
	}

	write(t, notes, "# Code generated by apigen. DO NOT EDIT.\nkind: Notes\n")
	if take(t, root, nil).Key != s.Key {
		t.Fatal("the key changed: it is the entry's inputs this test is about")
	}
	if changed := e.Current(); changed != notes {
		t.Errorf("Current = %q after %s changed, want it named", changed, notes)
	}
	write(t, notes, "kind: Notes\n")
	if err := os.Remove(rbac); err != nil {
		t.Fatal(err)
	}
	if changed := e.Current(); changed != rbac {
		t.Errorf("Current = %q after %s was removed, want it named", changed, rbac)
	}
}
