package loader

import (
	"errors"
	"go/ast"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/tools/go/packages"

	"github.com/apigen-dev/apigen/internal/cachefile"
)

// errCgo says that the load checked a package that uses cgo from its Go files.
var errCgo = errors.New("a package that uses cgo was checked from its Go files")

// checkedCgo reports whether a package of the graph was checked from source (it has syntax)
// and one of its files imports "C".
func checkedCgo(roots []*packages.Package) bool {
	found := false
	packages.Visit(roots, nil, func(p *packages.Package) {
		found = found || usesCgo(p.Syntax)
	})
	return found
}

// usesCgo reports whether one of files imports "C".
func usesCgo(files []*ast.File) bool {
	for _, f := range files {
		for _, imp := range f.Imports {
			if path, err := strconv.Unquote(imp.Path.Value); err == nil && path == "C" {
				return true
			}
		}
	}
	return false
}

// listsCompiled reports whether a load of the project at root had to be done again with the
// compiled files (listCompiled), so that its loads list them from the start.
func (c *StdCache) listsCompiled(root string) bool {
	name := c.compiledMarker(root)
	if name == "" {
		return false
	}
	if _, err := os.Stat(name); err != nil {
		return false
	}
	cachefile.Used(name)
	return true
}

// listCompiled notes that a load of the project at root had to be done again with the compiled
// files. Best effort: without the note, the next load is done again too.
func (c *StdCache) listCompiled(root string) {
	if name := c.compiledMarker(root); name != "" {
		_ = cachefile.Write(c.Dir, filepath.Base(name), nil)
	}
}

// compiledMarker is the file whose presence says so, for this apigen binary and the project at
// root ("" without a cache).
func (c *StdCache) compiledMarker(root string) string {
	if c == nil || c.Dir == "" || c.Identity == "" {
		return ""
	}
	return filepath.Join(c.Dir, "compiled-"+c.prefix()+"-"+hashHex(root))
}
