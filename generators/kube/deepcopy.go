package kube

import (
	"errors"
	"fmt"
	"go/token"

	dcargs "k8s.io/code-generator/cmd/deepcopy-gen/args"
	dcgen "k8s.io/code-generator/cmd/deepcopy-gen/generators"
	"k8s.io/gengo/v2/generator"

	"github.com/apigen-dev/apigen/generators/engine"
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
// Kind and ListKind; tags already present are honoured.
func DeepCopy() engine.Generator { return deepCopy{} }

type deepCopy struct{}

func (deepCopy) Name() string { return "deepcopy" }

func (deepCopy) Generate(ctx *engine.Context, out *engine.Output) error {
	pkgs, dirs, err := packagesOf(ctx, withInternal(ctx.Project))
	if err != nil {
		return err
	}
	if len(pkgs) == 0 {
		return nil
	}

	var tags tagEdits
	defer tags.restore()
	var errs []error
	for _, v := range withInternal(ctx.Project) {
		pkg := ctx.Load.Universe[v.Package]
		tags.addPackageTag(pkg, "k8s:deepcopy-gen", "package")
		for _, r := range v.Resources {
			listKind := r.ListKind
			if listKind == "" {
				listKind = r.Kind + "List"
			}
			for _, kind := range []string{r.Kind, listKind} {
				t := pkg.Types[kind]
				if t == nil {
					errs = append(errs, fmt.Errorf("%stype %s of resource %s not found in package %s", at(r.Pos), kind, r.Kind, v.Package))
					continue
				}
				tags.addTypeTag(t, "k8s:deepcopy-gen:interfaces", runtimeObject)
			}
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
