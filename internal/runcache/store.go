package runcache

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// header starts every entry; an entry without it (truncated, foreign) is a miss.
const header = version + "\n"

const (
	// Entries unused for maxAge are deleted, checked at most once per trimEvery, like the go
	// command's build cache; a hit refreshes an entry's time at most once per refreshEvery.
	maxAge       = 30 * 24 * time.Hour
	trimEvery    = 24 * time.Hour
	refreshEvery = time.Hour
)

// Store keeps one small file per key that found the tree current, holding the generated paths.
type Store struct{ dir string }

// DefaultDir is os.UserCacheDir()/apigen/verify ($XDG_CACHE_HOME or ~/.cache on Linux).
func DefaultDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "apigen", "verify"), nil
}

// NewStore returns the store in dir; nothing is created before the first Put.
func NewStore(dir string) *Store { return &Store{dir: dir} }

// Get returns the generated paths stored under key and whether there is an entry.
func (s *Store) Get(key string) ([]string, bool) {
	name := filepath.Join(s.dir, key)
	data, err := os.ReadFile(name)
	if err != nil || !bytes.HasPrefix(data, []byte(header)) {
		return nil, false
	}
	if fi, err := os.Stat(name); err == nil && time.Since(fi.ModTime()) > refreshEvery {
		now := time.Now()
		_ = os.Chtimes(name, now, now) // best effort: a read-only cache still answers
	}
	var paths []string
	if rest := strings.TrimSuffix(string(data[len(header):]), "\n"); rest != "" {
		paths = strings.Split(rest, "\n")
	}
	return paths, true
}

// Put records key with the generated paths. The entry appears whole or not at all.
func (s *Store) Put(key string, paths []string) error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString(header)
	for _, p := range paths {
		b.WriteString(p + "\n")
	}
	tmp, err := os.CreateTemp(s.dir, ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(b.String()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), filepath.Join(s.dir, key)); err != nil {
		return err
	}
	s.trim()
	return nil
}

// trim deletes entries unused for maxAge, and temporary files a crash left, at most once per
// trimEvery.
func (s *Store) trim() {
	stamp := filepath.Join(s.dir, ".trimmed")
	if fi, err := os.Stat(stamp); err == nil && time.Since(fi.ModTime()) < trimEvery {
		return
	}
	if err := os.WriteFile(stamp, nil, 0o600); err != nil {
		return
	}
	list, err := os.ReadDir(s.dir)
	if err != nil {
		return
	}
	for _, e := range list {
		if e.Name() == ".trimmed" {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > maxAge {
			os.Remove(filepath.Join(s.dir, e.Name()))
		}
	}
}
