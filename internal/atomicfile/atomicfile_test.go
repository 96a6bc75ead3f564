package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	root := t.TempDir()
	for _, c := range []struct {
		name          string
		perm, dirPerm os.FileMode
	}{
		{"project/pkg/zz_generated.go", 0o644, 0o755},
		{"cache/std/entry", 0o600, 0o700},
	} {
		path := filepath.Join(root, c.name)
		for _, data := range []string{"first", "second, longer"} {
			if err := Write(path, []byte(data), c.perm); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil || string(got) != data {
				t.Fatalf("%s holds %q (%v), want %q", c.name, got, err, data)
			}
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != c.perm {
			t.Errorf("%s: mode %v (%v), want %v", c.name, fi.Mode().Perm(), err, c.perm)
		}
		if fi, err := os.Stat(filepath.Dir(path)); err != nil || fi.Mode().Perm() != c.dirPerm {
			t.Errorf("%s's directory: mode %v (%v), want %v", c.name, fi.Mode().Perm(), err, c.dirPerm)
		}
		if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), TempPrefix+"*")); len(left) > 0 {
			t.Errorf("temporary files left: %v", left)
		}
	}
}

func TestWriteFailsWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "file")
	if err := Write(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The target is now a directory: the rename fails, and nothing else changes.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(path, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("new"), 0o644); err == nil {
		t.Fatal("Write over a non-empty directory succeeded")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, TempPrefix+"*")); len(left) > 0 {
		t.Errorf("temporary files left after a failed write: %v", left)
	}
}
