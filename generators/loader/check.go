package loader

import (
	"fmt"
	"go/ast"
	"go/scanner"
	"go/token"
	"go/types"
	"os"
	"runtime"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"
)

// metaMode is what the load asks go/packages for: the go command's metadata of every package
// (names, files, imports, every dependency, modules, type sizes), not their syntax or types.
// go/packages has no way to be given a package's types, so the load parses and type-checks
// the packages itself (checkGraph), as go/packages would, and takes the standard library's
// types from export data when apigen has them (see stdCache).
const metaMode = packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedDeps |
	packages.NeedModule | packages.NeedCompiledGoFiles | packages.NeedTypesSizes

// parseFunc parses one file of a package, as packages.Config.ParseFile does.
type parseFunc func(fset *token.FileSet, filename string, src []byte) (*ast.File, error)

// checkGraph fills in Fset, Syntax, Types, TypesInfo, TypeErrors, Errors and IllTyped of every
// package of roots, transitively, as go/packages does for NeedSyntax|NeedTypes|NeedDeps with
// config's Fset and ParseFile (its types.Config: the package's sizes, its module's Go
// version, every error kept, function bodies checked where they are parsed): each package is
// parsed as soon as it can be and type-checked once all its imports are, in parallel. TypesInfo
// holds what controller-tools reads of it (see checkPackage). A package std returns export
// data for is read from it instead, with no syntax or TypesInfo (see Result.sealStd); the
// standard library's packages come first in the import graph, so every package is
// imported once, and a package read from export data refers to the very objects of those it
// imports.
func checkGraph(roots []*packages.Package, fset *token.FileSet, parse parseFunc, std func(*packages.Package) []byte, imported func(*packages.Package, error)) {
	var all []*packages.Package
	packages.Visit(roots, nil, func(p *packages.Package) { all = append(all, p) })
	done := make(map[*packages.Package]chan struct{}, len(all))
	for _, p := range all {
		done[p] = make(chan struct{})
	}
	cpu := make(chan struct{}, runtime.GOMAXPROCS(0))
	var (
		exportMu sync.Mutex // gcexportdata.Read adds to the shared imports map
		imports  = map[string]*types.Package{}
		wg       sync.WaitGroup
	)
	for _, p := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(done[p])
			p.Fset = fset
			if p.PkgPath == "unsafe" {
				p.Types, p.Syntax, p.TypesInfo = types.Unsafe, []*ast.File{}, &types.Info{}
				return
			}
			if data := std(p); data != nil {
				for _, imp := range p.Imports {
					<-done[imp]
				}
				exportMu.Lock()
				tp, err := readExport(data, fset, imports, p.PkgPath)
				if err == nil {
					p.Types = tp
				}
				imported(p, err)
				exportMu.Unlock()
				if err == nil {
					return
				}
				// Export data that does not read falls back to the source (the go
				// command named it for this very build, so this is not expected).
			}
			files, errs := parseFiles(p.CompiledGoFiles, fset, parse, cpu)
			for _, imp := range p.Imports {
				<-done[imp]
			}
			checkPackage(p, fset, files, errs, cpu)
			exportMu.Lock()
			imports[p.PkgPath] = p.Types
			exportMu.Unlock()
		}()
	}
	wg.Wait()
}

// parseFiles parses a package's files in parallel, at most cap(cpu) at a time in the process.
func parseFiles(names []string, fset *token.FileSet, parse parseFunc, cpu chan struct{}) ([]*ast.File, []error) {
	files := make([]*ast.File, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cpu <- struct{}{}
			defer func() { <-cpu }()
			src, err := os.ReadFile(name)
			if err != nil {
				errs[i] = err
				return
			}
			files[i], errs[i] = parse(fset, name, src)
		}()
	}
	wg.Wait()
	return files, errs
}

// checkPackage records a package's parse errors and type-checks its files, as go/packages'
// loadPackage does.
func checkPackage(p *packages.Package, fset *token.FileSet, files []*ast.File, parseErrs []error, cpu chan struct{}) {
	appendError := func(err error) {
		switch err := err.(type) {
		case packages.Error:
			p.Errors = append(p.Errors, err)
		case *os.PathError:
			p.Errors = append(p.Errors, packages.Error{Pos: err.Path + ":1", Msg: err.Err.Error(), Kind: packages.ParseError})
		case scanner.ErrorList:
			for _, e := range err {
				p.Errors = append(p.Errors, packages.Error{Pos: e.Pos.String(), Msg: e.Msg, Kind: packages.ParseError})
			}
		case types.Error:
			p.TypeErrors = append(p.TypeErrors, err)
			p.Errors = append(p.Errors, packages.Error{Pos: err.Fset.Position(err.Pos).String(), Msg: err.Msg, Kind: packages.TypeError})
		default:
			p.Errors = append(p.Errors, packages.Error{Pos: "-", Msg: err.Error(), Kind: packages.UnknownError})
		}
	}
	syntax := make([]*ast.File, 0, len(files))
	for i, f := range files {
		if parseErrs[i] != nil {
			appendError(parseErrs[i])
		}
		if f != nil {
			syntax = append(syntax, f)
		}
	}
	p.Syntax = syntax
	p.Types = types.NewPackage(p.PkgPath, p.Name)
	importer := importerFunc(func(path string) (*types.Package, error) {
		if path == "unsafe" {
			return types.Unsafe, nil
		}
		imp := p.Imports[path]
		if imp == nil {
			return nil, fmt.Errorf("no metadata for %s", path)
		}
		if imp.Types != nil && imp.Types.Complete() {
			return imp.Types, nil
		}
		return nil, fmt.Errorf("could not load %s", path)
	})
	tc := &types.Config{Importer: importer, Error: appendError, Sizes: p.TypesSizes}
	if p.Module != nil && p.Module.GoVersion != "" {
		tc.GoVersion = "go" + p.Module.GoVersion
	}
	// What controller-tools reads of a package's type information (the types of type
	// expressions, the objects of declared names) is kept from this check (compactInfo): its
	// TypeChecker type-checks a package again only while TypesInfo is nil, into a second
	// types.Package and a full types.Info, for every package the schemas' type declarations
	// reach. Its own check skips function bodies, which adds nothing it reads.
	p.TypesInfo = &types.Info{
		Types: map[ast.Expr]types.TypeAndValue{},
		Defs:  map[*ast.Ident]types.Object{},
	}
	cpu <- struct{}{}
	err := types.NewChecker(tc, fset, p.Types, p.TypesInfo).Files(p.Syntax)
	compactInfo(p.TypesInfo, p.Types.Scope())
	<-cpu
	if err != nil && len(p.Errors) == 0 && len(p.Syntax) > 0 && strings.HasPrefix(err.Error(), "package requires newer Go version") {
		appendError(types.Error{Fset: fset, Pos: p.Syntax[0].Package, Msg: err.Error()})
	}
	if err != nil && len(p.Errors) == 0 {
		appendError(err)
	}
	p.IllTyped = len(p.Errors) > 0
	for _, imp := range p.Imports {
		p.IllTyped = p.IllTyped || imp.IllTyped
	}
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
