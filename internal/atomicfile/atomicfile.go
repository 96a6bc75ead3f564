// Package atomicfile replaces a file whole or not at all: a reader sees the old content or the
// new, never part of either, and a crash leaves at most a temporary file beside it. The project
// files apigen generates and the entries of its caches are both written this way.
package atomicfile

import (
	"os"
	"path/filepath"
)

// TempPrefix starts the name of the temporary file Write renames into place.
const TempPrefix = ".apigen-"

// Write replaces path with data, with permissions perm, creating the missing directories with
// perm plus search permission wherever perm grants read (0o644 makes 0o755, 0o600 makes 0o700).
func Write(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, perm|(perm&0o444)>>2); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, TempPrefix+"*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
