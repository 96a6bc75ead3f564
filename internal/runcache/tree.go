package runcache

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// sourceExts are the files the go command reads while listing a package: Go files, and the
// cgo, assembly and SWIG files whose build constraints it evaluates.
var sourceExts = map[string]bool{
	".go": true, ".c": true, ".cc": true, ".cxx": true, ".cpp": true, ".m": true, ".h": true,
	".hh": true, ".hpp": true, ".hxx": true, ".f": true, ".F": true, ".for": true, ".f90": true,
	".s": true, ".S": true, ".sx": true, ".swig": true, ".swigcxx": true,
}

// hashed reports whether the key holds the content of the file at rel: go.mod and go.sum, and
// source files anywhere (the load reaches any package of the module an API package imports,
// and go list reads the build constraints of files it leaves out). Every other file counts
// by its name and kind only; go list stats some (embed patterns, nested go.mod) but reads
// none. The other files a run reads (the generated YAML and Markdown it compares, the files
// its search for stale files looks into, wherever the project's layout puts them) it
// records itself, and the entry it stores checks each (Snapshot.Inputs).
func hashed(rel string) bool {
	return rel == "go.mod" || rel == "go.sum" || sourceExts[path.Ext(rel)]
}

// walker records a module's tree. It leaves out directories whose names start with a dot:
// neither the go command (their names are not valid import path elements) nor apigen's search
// for stale files enters them. It keeps testdata and _ directories, which the go command leaves
// out only of patterns such as ./... (a package may still import one). A nested module,
// which no load can reach without a replace and apigen's search does not enter, counts as one
// entry.
type walker struct {
	root    string
	prefix  string // of the entries' names
	main    bool   // the main module, whose vendor directory the go command would use
	entries map[string]string
}

func (w *walker) dir(rel string) error {
	abs := filepath.Join(w.root, filepath.FromSlash(rel))
	list, err := os.ReadDir(abs)
	if err != nil {
		return bypass("reading %s: %v", abs, err)
	}
	if rel != "" {
		kind := "dir"
		if slices.ContainsFunc(list, func(e os.DirEntry) bool { return e.Name() == "go.mod" }) {
			kind = "module"
		}
		w.entries[w.prefix+rel] = kind
		if kind == "module" {
			return nil
		}
	}
	for _, e := range list {
		r := path.Join(rel, e.Name())
		t := e.Type()
		switch {
		case t.IsDir():
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			if w.main && r == "vendor" {
				return bypass("the module has a vendor directory")
			}
			if err := w.dir(r); err != nil {
				return err
			}
		case t&os.ModeSymlink != 0:
			if err := w.symlink(r); err != nil {
				return err
			}
		case t.IsRegular():
			v := "file"
			if hashed(r) {
				sum, err := hashFile(filepath.Join(abs, e.Name()))
				if err != nil {
					return bypass("reading %s: %v", r, err)
				}
				v += " " + sum
			}
			w.entries[w.prefix+r] = v
		default:
			w.entries[w.prefix+r] = "other " + t.String()
		}
	}
	return nil
}

// symlink records a symbolic link by its target and, for a hashed file, the content it leads
// to. A link to a directory would need its own walk (and the go command does not follow them
// in patterns): it turns the cache off instead.
func (w *walker) symlink(rel string) error {
	abs := filepath.Join(w.root, filepath.FromSlash(rel))
	target, err := os.Readlink(abs)
	if err != nil {
		return bypass("reading %s: %v", rel, err)
	}
	v := "link " + target
	fi, err := os.Stat(abs)
	switch {
	case err != nil:
		// Dangling: only its name and target count.
	case fi.IsDir():
		return bypass("%s is a symbolic link to a directory", rel)
	case fi.Mode().IsRegular() && hashed(rel):
		sum, err := hashFile(abs)
		if err != nil {
			return bypass("reading %s: %v", rel, err)
		}
		v += " " + sum
	}
	w.entries[w.prefix+rel] = v
	return nil
}

func hashFile(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
