package loader

import (
	"path/filepath"
	"testing"
)

// TestInRoot: a file is inside the root when the path from the root does not climb out of it,
// whatever its own name starts with.
func TestInRoot(t *testing.T) {
	root := filepath.FromSlash("/src/proj")
	for _, c := range []struct {
		file, want string
		ok         bool
	}{
		{"/src/proj/pkg/apis/toys/v1/types.go", "pkg/apis/toys/v1/types.go", true},
		{"pkg/apis/toys/v1/types.go", "pkg/apis/toys/v1/types.go", true},
		{"/src/proj/..hidden/types.go", "..hidden/types.go", true},
		{"/src/proj", ".", true},
		{"/src/other/types.go", "", false},
		{"/src/proj2/types.go", "", false},
		{"../proj2/types.go", "", false},
		{"", "", false},
	} {
		got, ok := InRoot(root, filepath.FromSlash(c.file))
		if got != c.want || ok != c.ok {
			t.Errorf("InRoot(%q, %q) = %q, %v, want %q, %v", root, c.file, got, ok, c.want, c.ok)
		}
	}
}
