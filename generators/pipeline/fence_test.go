package pipeline

import (
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apigen-dev/apigen/generators/engine"
)

const (
	module     = "github.com/apigen-dev/apigen/"
	loaderPkg  = module + "generators/loader"
	enginePkg  = module + "generators/engine"
	gengoTypes = "k8s.io/gengo/v2/types"
)

// TestEmittersCannotReachTheLoad holds the fence between apigen's emitters and the load: what
// an emitter receives (engine.Context, the model with it) reaches no type of the loader nor
// of gengo's universe, and no file of an emitter's package imports either, so what an emitter
// needs of the user's source has to be a model fact. The files of those packages that serve
// apigen init and new-api, and import no engine, may use the loader's file helpers and gengo's
// namer.
func TestEmittersCannotReachTheLoad(t *testing.T) {
	if path := loadTypeIn(reflect.TypeFor[engine.Context](), "engine.Context", map[reflect.Type]bool{}); path != "" {
		t.Errorf("an emitter reaches the load through %s", path)
	}

	notEmitting := map[string]bool{
		"generators/scaffold/newapi_checks.go": true, // apigen new-api's checks of the directory it writes to
		"generators/scaffold/project.go":       true, // apigen init and new-api: plurals from gengo's namer
	}
	dirs := map[string]bool{}
	for _, g := range Emitters() {
		typ := reflect.TypeOf(g)
		if typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		dir, ok := strings.CutPrefix(typ.PkgPath(), module)
		if !ok {
			t.Fatalf("emitter %s is declared outside the module, in %s", g.Name(), typ.PkgPath())
		}
		dirs[dir] = true
	}
	if len(dirs) < 4 {
		t.Fatalf("the emitters live in %d packages, want at least golang, scaffold, manifests and docs", len(dirs))
	}
	for _, dir := range slices.Sorted(maps.Keys(dirs)) {
		names, err := filepath.Glob(filepath.Join("..", "..", filepath.FromSlash(dir), "*.go"))
		if err != nil || len(names) == 0 {
			t.Fatalf("no Go files in %s: %v", dir, err)
		}
		for _, name := range names {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			rel := dir + "/" + filepath.Base(name)
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			imports := map[string]token.Position{}
			for _, spec := range f.Imports {
				p, _ := strconv.Unquote(spec.Path.Value)
				imports[p] = fset.Position(spec.Pos())
			}
			_, usesEngine := imports[enginePkg]
			for _, p := range []string{loaderPkg, gengoTypes} {
				at, ok := imports[p]
				switch {
				case !ok:
				case !notEmitting[rel]:
					t.Errorf("%s:%d: %s, in the package of an emitter, imports %s: an emitter reads the model, not the load",
						rel, at.Line, filepath.Base(name), p)
				case usesEngine:
					t.Errorf("%s:%d: %s imports %s and the engine: only files that serve no emitter may import the load's packages",
						rel, at.Line, filepath.Base(name), p)
				}
			}
		}
	}
	for rel := range notEmitting {
		if _, err := os.Stat(filepath.Join("..", "..", filepath.FromSlash(rel))); err != nil {
			t.Errorf("%s is allowed to import the load's packages but is gone: drop it from the list", rel)
		}
	}
}

// loadTypeIn returns the path by which t reaches a type of the loader or of gengo's universe,
// or "" when it reaches none.
func loadTypeIn(t reflect.Type, path string, seen map[reflect.Type]bool) string {
	if seen[t] {
		return ""
	}
	seen[t] = true
	if p := t.PkgPath(); p == loaderPkg || strings.HasPrefix(p, "k8s.io/gengo/") {
		return path + " (" + t.String() + ")"
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return loadTypeIn(t.Elem(), path, seen)
	case reflect.Map:
		if p := loadTypeIn(t.Key(), path, seen); p != "" {
			return p
		}
		return loadTypeIn(t.Elem(), path, seen)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if p := loadTypeIn(f.Type, path+"."+f.Name, seen); p != "" {
				return p
			}
		}
	case reflect.Interface, reflect.Func, reflect.Chan:
		// A function or interface value could hand out anything: the context holds none.
		return path + " (" + t.String() + ", which could hold anything)"
	}
	return ""
}
