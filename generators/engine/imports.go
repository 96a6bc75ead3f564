package engine

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"path"
	"slices"
	"strconv"
)

// RenameImports renames the imports of a generated Go file whose names the rest of its
// package declares (a user's type or variable named runtime or schema), along with their
// uses: an import name may not also be a package-level name. declared holds the package's
// names; the new name is the old one with "pkg" appended (and a number, when that is
// declared too). A file with no such import comes back unchanged.
func RenameImports(src []byte, declared func(string) bool) ([]byte, error) {
	// Most files import nothing the package declares: reading the imports tells, without
	// parsing the whole file (a generated file of a large API package is thousands of lines).
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ImportsOnly|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(f.Imports, func(imp *ast.ImportSpec) bool { return renames(imp, declared) }) {
		return src, nil
	}
	fset = token.NewFileSet()
	f, err = parser.ParseFile(fset, "", src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	taken := func(name string) bool {
		if declared(name) {
			return true
		}
		for _, imp := range f.Imports {
			if importName(imp) == name {
				return true
			}
		}
		return false
	}
	renamed := map[string]string{}
	for _, imp := range f.Imports {
		if !renames(imp, declared) {
			continue
		}
		name := importName(imp)
		to := name + "pkg"
		for i := 2; taken(to); i++ {
			to = fmt.Sprintf("%spkg%d", name, i)
		}
		imp.Name = ast.NewIdent(to)
		renamed[name] = to
	}
	if len(renamed) == 0 {
		return src, nil
	}
	// An unresolved identifier in a selector is a package name (generated code declares no
	// package-level variable of an import's name; that is what is being avoided).
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && id.Obj == nil && renamed[id.Name] != "" {
				id.Name = renamed[id.Name]
			}
		}
		return true
	})
	var out bytes.Buffer
	if err := (&printer.Config{Mode: printer.UseSpaces | printer.TabIndent, Tabwidth: 8}).Fprint(&out, fset, f); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// renames reports whether an import must be renamed: the package declares its name.
func renames(imp *ast.ImportSpec, declared func(string) bool) bool {
	name := importName(imp)
	return name != "_" && name != "." && declared(name)
}

// importName is the name an import declares: its explicit name, or the last element of its
// path (the Kubernetes packages apigen imports are named after their directory).
func importName(imp *ast.ImportSpec) string {
	if imp.Name != nil {
		return imp.Name.Name
	}
	p, _ := strconv.Unquote(imp.Path.Value)
	return path.Base(p)
}
