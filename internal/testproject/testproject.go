// Package testproject turns a test case directory into a project the loader can load: a copy
// with examples/wardle's go.mod and go.sum, so that it resolves from the module cache alone.
package testproject

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Copy copies dir into a new temporary directory of the same base name and gives the copy
// examples/wardle's go.mod and go.sum where dir has none (under the case's own module path
// where caseModules has one). repoRoot is the repository's root,
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
	if module, ok := caseModules[filepath.Base(dir)]; ok {
		setModule(t, project, module)
	}
	return project
}

// caseModules are the module paths of the cases whose packages import each other under
// another path than examples/wardle's: the one their end-to-end test's apigen init gives them.
var caseModules = map[string]string{
	"declarative_validation": "example.com/toys",
}

// setModule rewrites the module directive of project's go.mod.
func setModule(t testing.TB, project, module string) {
	t.Helper()
	path := filepath.Join(project, "go.mod")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	first, rest, _ := strings.Cut(string(data), "\n")
	if !strings.HasPrefix(first, "module ") {
		t.Fatalf("%s does not start with its module directive", path)
	}
	if err := os.WriteFile(path, []byte("module "+module+"\n"+rest), 0o644); err != nil {
		t.Fatal(err)
	}
}
