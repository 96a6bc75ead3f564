package runcache

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apigen-dev/apigen/internal/cachefile"
)

// header starts every entry; an entry without it (truncated, foreign) is a miss.
const header = version + "\n"

// Store keeps one small file per key that found the tree current, holding the generated paths
// and the run's inputs that the key does not hash.
type Store struct{ dir string }

// Entry is what a run that left the tree current stored.
type Entry struct {
	// Paths are the files the run generates.
	Paths []string
	// Inputs are the files the run read whose content the key does not hold (see
	// Snapshot.Inputs), by absolute path, with what each held (FileFact). A lookup hits only
	// when every one still holds it.
	Inputs map[string]string
}

// Current returns "" when every input of the entry still holds what the run read, and
// otherwise the first (by name) that does not.
func (e Entry) Current() string {
	for _, name := range slices.Sorted(maps.Keys(e.Inputs)) {
		if fact, err := FileFact(name); err != nil || fact != e.Inputs[name] {
			return name
		}
	}
	return ""
}

// DefaultDir is os.UserCacheDir()/apigen/verify ($XDG_CACHE_HOME or ~/.cache on Linux).
func DefaultDir() (string, error) { return cachefile.Dir("verify") }

// NewStore returns the store in dir; nothing is created before the first Put. Entries are
// kept as cachefile keeps them.
func NewStore(dir string) *Store { return &Store{dir: dir} }

// Get returns the entry stored under key and whether there is one.
func (s *Store) Get(key string) (Entry, bool) {
	name := filepath.Join(s.dir, key)
	data, err := os.ReadFile(name)
	if err != nil || !bytes.HasPrefix(data, []byte(header)) {
		return Entry{}, false
	}
	cachefile.Used(name)
	var e Entry
	if rest := strings.TrimSuffix(string(data[len(header):]), "\n"); rest != "" {
		for _, line := range strings.Split(rest, "\n") {
			// "out <path>" or "in <fact>\t<path>"
			kind, v, _ := strings.Cut(line, " ")
			switch kind {
			case "out":
				e.Paths = append(e.Paths, v)
			case "in":
				fact, name, ok := strings.Cut(v, "\t")
				if !ok {
					return Entry{}, false
				}
				if e.Inputs == nil {
					e.Inputs = map[string]string{}
				}
				e.Inputs[name] = fact
			default:
				return Entry{}, false
			}
		}
	}
	return e, true
}

// Put records key with the entry. The entry appears whole or not at all.
func (s *Store) Put(key string, e Entry) error {
	var b strings.Builder
	b.WriteString(header)
	for _, p := range e.Paths {
		if strings.ContainsAny(p, "\n") {
			return fmt.Errorf("a generated path with a newline: %q", p)
		}
		b.WriteString("out " + p + "\n")
	}
	for _, name := range slices.Sorted(maps.Keys(e.Inputs)) {
		if strings.ContainsAny(name, "\t\n") || strings.ContainsAny(e.Inputs[name], "\t\n") {
			return fmt.Errorf("an input whose name cannot be stored: %q", name)
		}
		b.WriteString("in " + e.Inputs[name] + "\t" + name + "\n")
	}
	return cachefile.Write(s.dir, key, []byte(b.String()))
}
