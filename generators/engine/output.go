package engine

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
)

// Output is the in-memory result of a generation run: project-relative, slash-separated
// paths to file contents. Nothing reaches the disk until every generator has succeeded.
type Output struct {
	files map[string][]byte
	// scaffolds are user-owned files: written once, when absent, and never compared again;
	// notes say what the user must do with each once it is written.
	scaffolds map[string][]byte
	notes     map[string]string
	// owned are directories apigen owns besides those of its files (see Own).
	owned map[string]bool
}

// NewOutput returns an empty Output.
func NewOutput() *Output {
	return &Output{files: map[string][]byte{}, scaffolds: map[string][]byte{}, notes: map[string]string{}, owned: map[string]bool{}}
}

// Add records a file. Two generators writing the same path, or a path that would escape the
// project root, is a bug in apigen and is reported as an error.
func (o *Output) Add(name string, data []byte) error {
	if err := o.checkPath(name); err != nil {
		return err
	}
	o.files[name] = data
	return nil
}

// AddScaffold records a user-owned file (a stub the user finishes: custom storage, a custom
// subresource, a conversion function): a run writes it only when it is absent, and once it
// exists it is the user's, never compared or overwritten. note completes "apigen: wrote <name>"
// with what the user must do next.
func (o *Output) AddScaffold(name string, data []byte, note string) error {
	if err := o.checkPath(name); err != nil {
		return err
	}
	o.scaffolds[name], o.notes[name] = data, note
	return nil
}

// Own records a project directory apigen writes into even when this output has no file in it:
// a directory it reads API packages from, where an earlier run may have generated files
// for a group or version that is gone. Its stale generated files are deleted (see Roots).
func (o *Output) Own(dir string) error {
	if err := checkRel(dir); err != nil {
		return fmt.Errorf("invalid owned directory %q: must be a clean path inside the project", dir)
	}
	o.owned[dir] = true
	return nil
}

// Roots are the directories searched for stale generated files, sorted, none inside another:
// every directory given to Own, and the top directory of every file in the output, since
// what an earlier run generated for a kind, group or version since removed lies beside
// what this run generates (pkg/registry/<group>/<resource>), not in the same directory. They
// come from the layout and the output, so a layout apigen comes to support is searched
// without a list to keep. A directory that the search would skip (testdata, vendor, a
// hidden one) is not a root.
func (o *Output) Roots() []string {
	dirs := map[string]bool{}
	for dir := range o.owned {
		dirs[dir] = true
	}
	for _, files := range []map[string][]byte{o.files, o.scaffolds} {
		for name := range files {
			if top, _, ok := strings.Cut(name, "/"); ok {
				dirs[top] = true
			}
		}
	}
	var roots []string
	for _, dir := range slices.Sorted(maps.Keys(dirs)) {
		if slices.ContainsFunc(strings.Split(dir, "/"), skippedDir) {
			continue
		}
		// Sorted, a root comes before the directories inside it.
		if slices.ContainsFunc(roots, func(root string) bool { return strings.HasPrefix(dir, root+"/") }) {
			continue
		}
		roots = append(roots, dir)
	}
	return roots
}

// ScaffoldNote is what the user must do with a user-owned file once it is written.
func (o *Output) ScaffoldNote(name string) string { return o.notes[name] }

// checkRel refuses a path that is not clean, slash-separated and inside the project.
func checkRel(name string) error {
	clean := path.Clean(name)
	if clean != name || path.IsAbs(name) || clean == "." || strings.HasPrefix(clean, "../") || clean == ".." {
		return fmt.Errorf("not a clean path inside the project")
	}
	return nil
}

// checkPath refuses a path outside the project or one already in the output.
func (o *Output) checkPath(name string) error {
	if checkRel(name) != nil {
		return fmt.Errorf("invalid output path %q: must be a clean path inside the project", name)
	}
	_, generated := o.files[name]
	_, scaffolded := o.scaffolds[name]
	if generated || scaffolded {
		return fmt.Errorf("output path %q is generated twice", name)
	}
	return nil
}

// Scaffold returns a user-owned file's contents and whether it is in the output.
func (o *Output) Scaffold(name string) ([]byte, bool) {
	b, ok := o.scaffolds[name]
	return b, ok
}

// Scaffolds returns the paths of the user-owned files, sorted.
func (o *Output) Scaffolds() []string { return slices.Sorted(maps.Keys(o.scaffolds)) }

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

// Equal reports whether two outputs hold the same files, generated and user-owned, with the
// same bytes, and own the same directories.
func (o *Output) Equal(other *Output) bool {
	return maps.EqualFunc(o.files, other.files, slices.Equal) && maps.EqualFunc(o.scaffolds, other.scaffolds, slices.Equal) && maps.Equal(o.owned, other.owned)
}
