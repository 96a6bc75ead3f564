// Package cachefile keeps the entries of apigen's caches in the user cache directory, as the
// go command keeps its build cache: each entry a file written whole or not at all, its time
// refreshed when a run uses it, and deleted once unused for MaxAge; and it names the running
// apigen binary (Executable), which both caches' keys hold.
package cachefile

import (
	"os"
	"path/filepath"
	"time"

	"github.com/apigen-dev/apigen/internal/atomicfile"
)

const (
	// MaxAge is how long an unused entry is kept. Directories are trimmed at most once per
	// trimEvery, and a used entry's time is refreshed at most once per refreshEvery.
	MaxAge       = 30 * 24 * time.Hour
	trimEvery    = 24 * time.Hour
	refreshEvery = time.Hour
)

// trimmed is the file whose time says when a directory was last trimmed.
const trimmed = ".trimmed"

// Dir is os.UserCacheDir()/apigen/name ($XDG_CACHE_HOME or ~/.cache on Linux).
func Dir(name string) (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "apigen", name), nil
}

// Used marks the entry at path as used, so that trimming keeps it. Best effort: a read-only
// cache still answers.
func Used(path string) {
	if fi, err := os.Stat(path); err == nil && time.Since(fi.ModTime()) > refreshEvery {
		now := time.Now()
		_ = os.Chtimes(path, now, now)
	}
}

// Write stores data as the entry name in dir, whole or not at all (concurrent writers each
// write a complete entry, and the last one stays), then trims dir.
func Write(dir, name string, data []byte) error {
	if err := atomicfile.Write(filepath.Join(dir, name), data, 0o600); err != nil {
		return err
	}
	trim(dir)
	return nil
}

// trim deletes the entries of dir unused for MaxAge, and temporary files a crash left, at
// most once per trimEvery.
func trim(dir string) {
	stamp := filepath.Join(dir, trimmed)
	if fi, err := os.Stat(stamp); err == nil && time.Since(fi.ModTime()) < trimEvery {
		return
	}
	if err := os.WriteFile(stamp, nil, 0o600); err != nil {
		return
	}
	list, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range list {
		if e.Name() == trimmed {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > MaxAge {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
