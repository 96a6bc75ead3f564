// Package scaffold writes the user-owned files of apigen init and apigen new-api. Unlike
// generated files they are written once and never overwritten: the user owns them.
package scaffold

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/apigen-dev/apigen/templates"
)

// IfExists says what to do when a scaffolded file is already there.
type IfExists int

const (
	// Refuse fails the whole scaffold, writing nothing.
	Refuse IfExists = iota
	// Skip leaves the existing file alone (e.g. the doc.go that an earlier new-api wrote).
	Skip
)

// File is one user-owned file rendered from templates/scaffold.
type File struct {
	Path     string // project-relative, slash-separated
	Template string // path inside templates.Scaffold
	IfExists IfExists
}

// Result lists what a scaffold wrote and what it left alone.
type Result struct {
	Written, Skipped []string
	// Updated are existing files a scaffold changed (go.mod, given apigen as a tool).
	Updated []string
}

// Write renders every file in memory, checks that none it must create already exists, and only
// then writes them: a refused scaffold leaves the tree as it was.
func Write(root string, files []File, data any) (Result, error) {
	type rendered struct {
		File
		content []byte
	}
	var todo []rendered
	var res Result
	var existing []string
	for _, f := range files {
		content, err := render(f, data)
		if err != nil {
			return Result{}, err
		}
		_, err = os.Stat(filepath.Join(root, filepath.FromSlash(f.Path)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			todo = append(todo, rendered{f, content})
		case err != nil:
			return Result{}, err
		case f.IfExists == Skip:
			res.Skipped = append(res.Skipped, f.Path)
		default:
			existing = append(existing, f.Path)
		}
	}
	if len(existing) > 0 {
		return Result{}, fmt.Errorf("refusing to overwrite existing file(s): %s", strings.Join(existing, ", "))
	}
	for _, f := range todo {
		path := filepath.Join(root, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return Result{}, err
		}
		if err := os.WriteFile(path, f.content, 0o644); err != nil {
			return Result{}, err
		}
		res.Written = append(res.Written, f.Path)
	}
	return res, nil
}

func render(f File, data any) ([]byte, error) {
	return templates.RenderScaffold(f.Template, f.Path, data)
}
