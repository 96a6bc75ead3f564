package loader

// What the loader assumes of the compiler's export data, as the go build cache holds it and
// golang.org/x/tools/go/gcexportdata reads it:
//
//   - it declares what a load from source declares, but for the unnamed results of a function
//     that returns from inside a range-over-func loop, which the compiler names #rv1, #rv2,
//     ... (types2's RenameResult), where a load from source has none: such a package is
//     loaded from source when gengo is to read its declarations (namesResults);
//   - its positions name a package's files by their paths as the compiler was given them,
//     $GOROOT/src/<path>/<file> for the standard library, $GOROOT written as such
//     (<path>/<file> with -trimpath), and every declaration of a package in one directory
//     (exportFileNames);
//   - an archive in the build cache holds the export data after a header that
//     gcexportdata.NewReader skips, and tells its size (readExportFile; readAll reads it in
//     one allocation, or as any reader should it not tell).
//
// TestAssumeExportData fails should a compiler change any of it.

import (
	"bytes"
	"go/token"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/gcexportdata"
)

// readExportFile returns the export data of a compiled package (an archive in the build cache).
func readExportFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := gcexportdata.NewReader(f)
	if err != nil {
		return nil, err
	}
	return readAll(r)
}

// readAll reads r to its end, into a buffer of the size r says it has when it is an
// io.LimitedReader (gcexportdata.NewReader's of an archive, which knows the export data's size;
// gcexportdata.Read reads its input so too): io.ReadAll would grow its buffer, a copy and a
// cleared allocation at each doubling, megabytes for the larger packages.
func readAll(r io.Reader) ([]byte, error) {
	if lr, ok := r.(*io.LimitedReader); ok {
		data := make([]byte, lr.N)
		_, err := io.ReadFull(lr, data)
		return data, err
	}
	return io.ReadAll(r)
}

// readExport reads a package's export data into imports, the load's map of packages by path.
func readExport(data []byte, fset *token.FileSet, imports map[string]*types.Package, path string) (*types.Package, error) {
	// Read reads its input whole first, at once when it is told the size (see readAll).
	tp, err := gcexportdata.Read(&io.LimitedReader{R: bytes.NewReader(data), N: int64(len(data))}, fset, imports, path)
	if err != nil {
		// Whatever the importer added for the package is not to be found again.
		delete(imports, path)
	}
	return tp, err
}

// exportFileNames returns how the positions of a package read from export data name its files:
// the file of base name b is prefix+b. The go command's compiler names a standard library
// file $GOROOT/src/<path>/<file> (<path>/<file> with -trimpath). ok is false when the names
// of the package's declarations differ in more than their base names, or name a file not
// among files.
func exportFileNames(fset *token.FileSet, tp *types.Package, files []string) (prefix string, ok bool) {
	bases := map[string]bool{}
	for _, name := range files {
		bases[filepath.Base(name)] = true
	}
	scope := tp.Scope()
	found := false
	for _, n := range scope.Names() {
		pos := scope.Lookup(n).Pos()
		if !pos.IsValid() {
			continue
		}
		f := fset.File(pos)
		if f == nil {
			return "", false
		}
		name := f.Name()
		i := strings.LastIndexAny(name, `/\`)
		if !bases[name[i+1:]] || found && name[:i+1] != prefix {
			return "", false
		}
		prefix, found = name[:i+1], true
	}
	return prefix, found
}

// namesResults reports whether export data names results the source leaves unnamed (#rv1, ...).
func namesResults(data []byte) bool { return bytes.Contains(data, []byte("#rv")) }
