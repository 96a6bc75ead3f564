// Package testproject turns a test case directory into a project the loader can load: a copy
// with examples/wardle's go.mod and go.sum, so that it resolves from the module cache alone.
package testproject

import (
	"os"
	"path/filepath"
	"testing"
)

// Copy copies dir into a new temporary directory of the same base name and gives the copy
// examples/wardle's go.mod and go.sum where dir has none. repoRoot is the repository's root,
// relative to the calling test's package or absolute.
func Copy(t testing.TB, repoRoot, dir string) string {
	t.Helper()
	project := filepath.Join(t.TempDir(), filepath.Base(dir))
	if err := os.CopyFS(project, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"go.mod", "go.sum"} {
		if _, err := os.Stat(filepath.Join(project, name)); err == nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join(repoRoot, "examples", "wardle", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(project, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return project
}
