package kube

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path"
	"path/filepath"
	"slices"

	dcargs "k8s.io/code-generator/cmd/deepcopy-gen/args"
	dcgen "k8s.io/code-generator/cmd/deepcopy-gen/generators"
	"k8s.io/gengo/v2/generator"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/loader"
	"github.com/apigen-dev/apigen/generators/model"
)

const (
	deepCopyFile = "zz_generated.deepcopy.go"
	// runtimeObject is the interface every resource kind and list kind implements.
	runtimeObject = "k8s.io/apimachinery/pkg/runtime.Object"
)

// at is the "file:line:col: " prefix of an error about something at pos, if pos is known.
func at(pos token.Position) string {
	if !pos.IsValid() {
		return ""
	}
	return pos.String() + ": "
}

// DeepCopy returns the generator that runs deepcopy-gen over every version package of the
// model, writing <version dir>/zz_generated.deepcopy.go. It supplies the tags users do not
// write: +k8s:deepcopy-gen=package on each version package, and
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object on each resource's
// Kind and ListKind (when it has one); tags already present are honoured.
func DeepCopy() engine.Upstream { return deepCopy{} }

type deepCopy struct{}

func (deepCopy) Name() string { return "deepcopy" }

func (deepCopy) Generate(ctx *engine.LoadContext, out *engine.Output) error {
	var versions []*model.Version
	var errs []error
	for _, v := range withInternal(ctx.Project) {
		reused, err := reuseDeepCopy(ctx.Load, v, ownDeepCopyObjects(ctx, v))
		if err != nil {
			errs = append(errs, err)
		}
		if !reused {
			versions = append(versions, v)
		}
	}
	pkgs, dirs, err := packagesOf(ctx, versions)
	if err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil || len(pkgs) == 0 {
		return err
	}

	var tags tagEdits
	defer tags.restore()
	for _, v := range versions {
		pkg := ctx.Load.Universe[v.Package]
		tags.addPackageTag(pkg, "k8s:deepcopy-gen", "package")
		// A type controller-gen leaves out (its deepcopy is the user's) is left out here too.
		for _, t := range pkg.Types {
			if slices.Contains(tagValues(typeComments(t), "kubebuilder:object:generate"), "false") {
				tags.addTypeTag(t, "k8s:deepcopy-gen", "false")
			}
		}
		objects := func(pos token.Position, kinds ...string) {
			for _, kind := range kinds {
				if kind == "" {
					continue // a kind without a list type
				}
				t := pkg.Types[kind]
				if t == nil {
					errs = append(errs, fmt.Errorf("%stype %s of resource %s not found in package %s", at(pos), kind, kinds[0], v.Package))
					continue
				}
				tags.addTypeTag(t, "k8s:deepcopy-gen:interfaces", runtimeObject)
			}
		}
		for _, r := range v.Resources {
			objects(r.Pos, r.Kind, r.ListKind)
		}
		// A kind left out of the version stays a runtime.Object, as controller-gen makes every
		// root type: the package may well register it itself.
		for _, s := range v.Skipped {
			objects(s.Pos, s.Kind, s.ListKind)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}

	args := dcargs.New()
	args.OutputFile = deepCopyFile
	return run(ctx, out, upstream{
		name:              "deepcopy-gen",
		nameSystems:       dcgen.NameSystems(),
		defaultNameSystem: dcgen.DefaultNameSystem(),
		inputs:            pkgs, // pitfall 2: only the version packages
		dirs:              dirs,
		targets: func(c *generator.Context) []generator.Target {
			return dcgen.GetTargets(c, args)
		},
	})
}

// deepCopyTools are the generators whose zz_generated.deepcopy.go is what deepcopy-gen would
// write for apigen: the same methods, for the same types.
var deepCopyTools = []string{"controller-gen", "deepcopy-gen"}

// reuseDeepCopy reports whether a version package keeps the zz_generated.deepcopy.go another
// tool wrote (a kubebuilder project's, which controller-gen keeps current for its CRDs):
// apigen then generates none, since it may not overwrite the file. The file must make every
// resource kind and list a runtime.Object (controller-gen does for +kubebuilder:object:root
// types, and prometheus-operator's packages by hand beside their types: own lists those);
// otherwise the error says what to add.
func reuseDeepCopy(load *loader.Result, v *model.Version, own map[string]bool) (bool, error) {
	name := path.Join(v.Dir, deepCopyFile)
	src, err := load.Reads.ReadFile(filepath.Join(load.Root, filepath.FromSlash(name)))
	if err != nil || !slices.Contains(deepCopyTools, engine.OtherTool(name, src)) {
		return false, nil
	}
	f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.SkipObjectResolution)
	if err != nil {
		return true, fmt.Errorf("%s: %v", name, err)
	}
	objects := maps.Clone(own)
	if objects == nil {
		objects = map[string]bool{}
	}
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "DeepCopyObject" && fn.Recv != nil && len(fn.Recv.List) == 1 {
			if star, ok := fn.Recv.List[0].Type.(*ast.StarExpr); ok {
				if id, ok := star.X.(*ast.Ident); ok {
					objects[id.Name] = true
				}
			}
		}
	}
	var errs []error
	for _, r := range v.Resources {
		for _, kind := range []string{r.Kind, r.ListKind} {
			if kind != "" && !objects[kind] {
				errs = append(errs, fmt.Errorf("%s%s, which apigen keeps (written by %s), has no DeepCopyObject for %s; add +kubebuilder:object:root=true to %s and run controller-gen again, or remove the file and apigen generates it",
					at(r.Pos), name, engine.OtherTool(name, src), kind, kind))
			}
		}
	}
	return true, errors.Join(errs...)
}

// ownDeepCopyObjects are the types of a version package that declare DeepCopyObject in a file
// the load reads, that is, by hand rather than in a generated file.
func ownDeepCopyObjects(ctx *engine.LoadContext, v *model.Version) map[string]bool {
	if ctx.Load == nil || ctx.Load.Universe == nil {
		return nil
	}
	pkg := ctx.Load.Universe[v.Package] // Package() would add a missing one
	if pkg == nil {
		return nil
	}
	out := map[string]bool{}
	for name, t := range pkg.Types {
		if _, ok := t.Methods["DeepCopyObject"]; ok {
			out[name] = true
		}
	}
	return out
}
