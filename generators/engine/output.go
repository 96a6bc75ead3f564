package engine

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// Output is the in-memory result of a generation run: project-relative, slash-separated
// paths to file contents. Nothing reaches the disk until every generator has succeeded.
type Output struct {
	files map[string][]byte
}

// NewOutput returns an empty Output.
func NewOutput() *Output { return &Output{files: map[string][]byte{}} }

// Add records a file. Two generators writing the same path, or a path that would escape the
// project root, is a bug in apigen and is reported as an error.
func (o *Output) Add(name string, data []byte) error {
	clean := path.Clean(name)
	if clean != name || path.IsAbs(name) || clean == "." || strings.HasPrefix(clean, "../") || clean == ".." {
		return fmt.Errorf("invalid output path %q: must be a clean path inside the project", name)
	}
	if _, ok := o.files[name]; ok {
		return fmt.Errorf("output path %q is generated twice", name)
	}
	o.files[name] = data
	return nil
}

// Replace changes the contents of a file already in the output.
func (o *Output) Replace(name string, data []byte) error {
	if _, ok := o.files[name]; !ok {
		return fmt.Errorf("output path %q is not generated", name)
	}
	o.files[name] = data
	return nil
}

// Get returns the contents of a file and whether it is in the output.
func (o *Output) Get(name string) ([]byte, bool) {
	b, ok := o.files[name]
	return b, ok
}

// Paths returns every path in the output, sorted.
func (o *Output) Paths() []string {
	paths := make([]string, 0, len(o.files))
	for p := range o.files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	return paths
}

// Len is the number of files in the output.
func (o *Output) Len() int { return len(o.files) }

// Equal reports whether two outputs hold the same files with the same bytes.
func (o *Output) Equal(other *Output) bool {
	if len(o.files) != len(other.files) {
		return false
	}
	for name, data := range o.files {
		if b, ok := other.files[name]; !ok || string(b) != string(data) {
			return false
		}
	}
	return true
}
