package loader

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/tools/go/packages"
	"k8s.io/gengo/v2/generator"
	"k8s.io/gengo/v2/namer"
	"k8s.io/gengo/v2/parser"
	gengotypes "k8s.io/gengo/v2/types"
)

// What the loader assumes of k8s.io/gengo/v2 (its parser and universe), the version go.mod
// pins, and why; each is checked by a test that fails when an upgrade changes it:
//
//   - the parser's unexported fields are those of parserLayout, and its own load fills them
//     as feedParser does (TestAssumeGengoParserLayout; TestUniverseEquivalence builds the
//     universe from apigen's load and from gengo's own and compares them);
//   - gengo indexes comment groups by the file and line they end on (commentKey), and of a
//     package's syntax reads only doc.go (package comments, tags) once they are indexed, so
//     the tags of the API packages' other files are added by addPackageTags;
//   - every universe shares the builtin types (gengo's types.String, types.Int64, ...,
//     types.Any: package-level variables its Universe hands out for Go's basic types, so that
//     generators compare with ==), and walking a Go type into a universe sets their GoType
//     (parser.walkType): universeMu serializes those walks between the loads of one process,
//     and nothing of apigen reads a builtin type's GoType (TestAssumeGengoSharedBuiltins;
//     TestStdCacheRunsAtOnce and the pipeline's TestRunsAtOnce under the race detector, make
//     test-race);
//   - the universe reads more of a package than its types only for the packages gengo
//     processes fully, and looks comments up only at the positions of struct fields, methods
//     and declarations (read): which standard library packages come from export data, and
//     whose comments are scanned beside it, follows from it (TestUniverseEquivalence compares
//     the universe built with the std cache with gengo's own).
//
// gengo's parser can only load packages itself, with a go/packages load of its own that
// parses and type-checks every dependency in full (k8s.io/gengo/v2 has no constructor from
// loaded packages; its newest version is the one go.mod pins). apigen hands it the run's one
// load instead, by filling in the four fields its own load fills in (gengo's
// loadPackagesWithConfig): the packages by path, which of them were asked for, the file set,
// and every comment group by the file and line it ends on. This is the only place apigen
// reaches into another module's unexported state, and it is guarded: parserFields checks the
// names and types of the parser's fields first, and when they are not what this code was
// written against (a newer gengo), Run lets gengo load the packages itself, which is slower
// and gives the same universe (TestAssumeGengoParserLayout fails then, so that the change is noticed).
// The clean route, a parser constructor that takes loaded packages, is an upstream change to
// propose to gengo.

// universeMu is held by every call into gengo that walks Go types into a universe: gengo's
// NewUniverse (inside NewContext, newContext) and LoadPackagesTo (inside Context.LoadPackages,
// loadPackages; an upstream generator calls it itself, so its whole run holds the lock:
// WithGengo). Those walks write the builtin types, which are shared by every universe of the
// process (types.String and the other package-level variables of k8s.io/gengo/v2/types), so
// two loads at once in one process (the command driven as a library, tests that load side by
// side) would write the same variables: the last value is the same Go basic type either way
// for all but types.Byte (uint8, int8 and byte share it), but the writes race. A universe of
// its own per load is not an option: the upstream generators compare types with ==
// (t == types.String). Everything else a load builds, its parser and its universe, is its own,
// so only those walks wait for each other; go list, parsing and type-checking, the longest part
// of a load, run side by side.
var universeMu sync.Mutex

// newContext is gengo's NewContext for the load's parser, with no name systems: the only call
// of NewUniverse for it.
func newContext(p *parser.Parser) (*generator.Context, error) {
	universeMu.Lock()
	defer universeMu.Unlock()
	return generator.NewContext(p, namer.NameSystems{}, "")
}

// loadPackages processes packages of the load fully in the context's universe
// (Context.LoadPackages).
func loadPackages(c *generator.Context, paths ...string) error {
	universeMu.Lock()
	defer universeMu.Unlock()
	_, err := c.LoadPackages(paths...)
	return err
}

// WithGengo runs f holding the lock of every walk of Go types into a gengo universe (see
// universeMu), for code that calls into gengo where the loader cannot: an upstream generator
// run on a load's Context, whose targets function may load packages into the universe. f must
// not call Result.Require (it takes the same lock).
func WithGengo(f func() error) error {
	universeMu.Lock()
	defer universeMu.Unlock()
	return f()
}

// builtin reports whether t is one of gengo's builtin types, which every universe shares and
// whose GoType another load may be writing (see universeMu): their Kind and Name never change,
// their GoType is not to be read.
func builtin(t *gengotypes.Type) bool {
	return t.Kind == gengotypes.Builtin || t == gengotypes.Any
}

// parserLayout is the shape of gengo's Parser that feedParser was written against.
var parserLayout = map[string]reflect.Type{
	"goPkgs":                reflect.TypeFor[map[string]*packages.Package](),
	"userRequested":         reflect.TypeFor[map[string]bool](),
	"fullyProcessed":        reflect.TypeFor[map[string]bool](),
	"buildTags":             reflect.TypeFor[[]string](),
	"fset":                  reflect.TypeFor[*token.FileSet](),
	"endLineToCommentGroup": nil, // map[fileLine]*ast.CommentGroup, fileLine{file string; line int}
}

// parserFields returns the settable fields of p by name, or an error when the parser's shape
// is not parserLayout.
func parserFields(p *parser.Parser) (map[string]reflect.Value, error) {
	v := reflect.ValueOf(p).Elem()
	t := v.Type()
	if t.NumField() != len(parserLayout) {
		return nil, fmt.Errorf("gengo's parser has %d fields, not the %d apigen knows", t.NumField(), len(parserLayout))
	}
	fields := map[string]reflect.Value{}
	for i := range t.NumField() {
		f := t.Field(i)
		want, ok := parserLayout[f.Name]
		if !ok {
			return nil, fmt.Errorf("gengo's parser has an unknown field %s", f.Name)
		}
		if want == nil {
			want = commentMapType(f.Type)
		}
		if f.Type != want {
			return nil, fmt.Errorf("gengo's parser field %s is a %s, not a %v", f.Name, f.Type, want)
		}
		fields[f.Name] = reflect.NewAt(f.Type, unsafe.Pointer(v.Field(i).UnsafeAddr())).Elem()
	}
	return fields, nil
}

// fullyProcessed returns the packages gengo's parser has processed fully (its own record of
// them), or false when the parser's shape is not parserLayout.
func fullyProcessed(p *parser.Parser) (map[string]bool, bool) {
	fields, err := parserFields(p)
	if err != nil {
		return nil, false
	}
	return fields["fullyProcessed"].Interface().(map[string]bool), true
}

// commentKey is where gengo's comment index keeps a comment group: the file and line it ends on,
// as gengo's loadPackagesWithConfig computes the key of endLineToCommentGroup. The load's own
// packages and the comments scanned beside export data are indexed by it alike.
func commentKey(fset *token.FileSet, c *ast.CommentGroup) (file string, line int) {
	pos := fset.Position(c.End())
	return pos.Filename, pos.Line
}

// commentMapType returns t when it is a map from struct{file string; line int} to
// *ast.CommentGroup, gengo's comment index, and nil otherwise.
func commentMapType(t reflect.Type) reflect.Type {
	if t.Kind() != reflect.Map || t.Elem() != reflect.TypeFor[*ast.CommentGroup]() {
		return nil
	}
	k := t.Key()
	if k.Kind() != reflect.Struct || k.NumField() != 2 ||
		k.Field(0).Name != "file" || k.Field(0).Type.Kind() != reflect.String ||
		k.Field(1).Name != "line" || k.Field(1).Type.Kind() != reflect.Int {
		return nil
	}
	return t
}

// feedParser returns a gengo parser (with the ignore_autogenerated build tag) that holds the
// given packages and every package they import, as if its LoadPackages had loaded roots
// itself: roots are the user-requested packages. Later LoadPackages and FindPackages calls
// for packages of the load (a generator asking for its peers) find them there and load
// nothing. The packages gengo gets are copies of the load's records, so that controller-tools,
// which type-checks again the packages its schemas read and stores the result in the record,
// never changes what gengo walks.
//
// A package read from export data has no syntax: comments gives the comment groups of those
// whose comments gengo may look up (see StdCache), and they are indexed as gengo would index
// the package's own.
func feedParser(fset *token.FileSet, roots []*packages.Package, comments func(pkgPath string) []commentGroup) (*parser.Parser, error) {
	p := parser.NewWithOptions(parser.Options{BuildTags: []string{BuildTag}})
	fields, err := parserFields(p)
	if err != nil {
		return nil, err
	}
	fields["fset"].Set(reflect.ValueOf(fset))

	copies := copyGraph(roots)
	goPkgs := fields["goPkgs"]
	index := fields["endLineToCommentGroup"]
	key := reflect.New(index.Type().Key()).Elem()
	file := reflect.NewAt(key.Field(0).Type(), unsafe.Pointer(key.Field(0).UnsafeAddr())).Elem()
	line := reflect.NewAt(key.Field(1).Type(), unsafe.Pointer(key.Field(1).UnsafeAddr())).Elem()
	packages.Visit(copies, nil, func(pkg *packages.Package) {
		goPkgs.SetMapIndex(reflect.ValueOf(pkg.PkgPath), reflect.ValueOf(pkg))
		for _, g := range comments(pkg.PkgPath) {
			group := &ast.CommentGroup{List: make([]*ast.Comment, len(g.Texts))}
			for i, text := range g.Texts {
				group.List[i] = &ast.Comment{Text: text}
			}
			file.SetString(g.File)
			line.SetInt(int64(g.Line))
			index.SetMapIndex(key, reflect.ValueOf(group))
		}
		var docs []*ast.File
		for _, f := range pkg.Syntax {
			for _, c := range f.Comments {
				name, n := commentKey(fset, c)
				file.SetString(name)
				line.SetInt(int64(n))
				index.SetMapIndex(key, reflect.ValueOf(c))
			}
			if filepath.Base(fset.Position(f.FileStart).Filename) == "doc.go" {
				docs = append(docs, f)
			}
		}
		// Of a package's syntax, gengo reads only doc.go (its package comments) once the
		// comments are indexed; the rest can go once controller-tools is done with it.
		pkg.Syntax = docs
	})
	requested := fields["userRequested"]
	for _, pkg := range copies {
		requested.SetMapIndex(reflect.ValueOf(pkg.PkgPath), reflect.ValueOf(true))
	}
	return p, nil
}

// copyGraph copies the package records of roots and everything they import, with the
// copies' imports pointing at copies.
func copyGraph(roots []*packages.Package) []*packages.Package {
	copies := map[*packages.Package]*packages.Package{}
	var cp func(pkg *packages.Package) *packages.Package
	cp = func(pkg *packages.Package) *packages.Package {
		if c := copies[pkg]; c != nil {
			return c
		}
		c := new(packages.Package)
		*c = *pkg
		copies[pkg] = c
		c.Imports = make(map[string]*packages.Package, len(pkg.Imports))
		for path, imp := range pkg.Imports {
			c.Imports[path] = cp(imp)
		}
		return c
	}
	out := make([]*packages.Package, len(roots))
	for i, r := range roots {
		out[i] = cp(r)
	}
	return out
}

// read returns, sorted, the packages among those of the load that gengo processed fully, and
// those whose declarations the universe holds, or whose comments it may have looked up, and
// did not process fully: gengo looks a comment up at the position of a struct field, a method
// (of a named type or an interface, embedded ones included) or a declaration of a package it
// processes fully, and each is declared in a package the universe holds a type of or in the
// object's own package, both counted here.
func read(u gengotypes.Universe, processed map[string]bool, of map[string]bool) (full, held []string) {
	fullSet, heldSet := map[string]bool{}, map[string]bool{}
	note := func(p *types.Package) {
		if p != nil && of[p.Path()] {
			heldSet[p.Path()] = true
		}
	}
	for path, pkg := range u {
		if of[path] && (processed[path] || len(pkg.Comments)+len(pkg.DocComments) > 0) {
			fullSet[path] = true
		}
		if of[path] && len(pkg.Types)+len(pkg.Functions)+len(pkg.Variables)+len(pkg.Constants) > 0 {
			heldSet[path] = true
		}
		for _, m := range []map[string]*gengotypes.Type{pkg.Types, pkg.Functions, pkg.Variables, pkg.Constants} {
			for _, t := range m {
				if builtin(t) {
					continue // a basic type: no package, no fields, no methods
				}
				switch gt := t.GoType.(type) {
				case *types.Struct:
					for i := range gt.NumFields() {
						note(gt.Field(i).Pkg())
					}
				case *types.Interface:
					for i := range gt.NumMethods() {
						note(gt.Method(i).Pkg())
					}
				case *types.Named:
					note(gt.Obj().Pkg())
					for i := range gt.NumMethods() {
						note(gt.Method(i).Pkg())
					}
				case *types.Alias:
					note(gt.Obj().Pkg())
				}
			}
		}
	}
	for path := range fullSet {
		delete(heldSet, path)
	}
	return slices.Sorted(maps.Keys(fullSet)), slices.Sorted(maps.Keys(heldSet))
}

// addPackageTags adds to a package's comments, where gengo keeps the tags it read from doc.go,
// the comments above the package clause of its other files, as the load parsed them: a
// package tag (+groupName, +k8s:openapi-gen) may sit in any file, and the upstream generators
// see what apigen sees.
func (r *Result) addPackageTags(path string) {
	pkg, loaded := r.Universe[path], r.packages[path]
	if pkg == nil || loaded == nil {
		return
	}
	for _, f := range r.Files(path) {
		if filepath.Base(r.Fset.Position(f.FileStart).Filename) == "doc.go" {
			continue // gengo read doc.go's comments already
		}
		for _, cg := range f.Comments {
			if cg.End() > f.Package {
				break
			}
			if text := strings.TrimRight(cg.Text(), "\n"); text != "" {
				pkg.Comments = append(pkg.Comments, strings.Split(text, "\n")...)
			}
		}
	}
}
