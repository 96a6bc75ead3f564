package golang

import (
	"path"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/model"
)

// Register emits zz_generated.register.go in every version package: the group version, the
// scheme builder and the registration of the package's kinds.
func Register() engine.Generator { return register{} }

type register struct{}

func (register) Name() string { return "register" }

func (register) Generate(ctx *engine.Context, out *engine.Output) error {
	for _, g := range ctx.Project.Groups {
		for _, v := range g.Versions {
			f := newFile(v.Package, goPackageName(v))
			emitRegister(f, g, v)
			if err := add(ctx, out, path.Join(v.Dir, "zz_generated.register.go"), f); err != nil {
				return err
			}
		}
	}
	return nil
}

func emitRegister(f *jen.File, g *model.Group, v *model.Version) {
	f.Comment("GroupName is the API group of the types in this package.")
	f.Const().Id("GroupName").Op("=").Lit(g.Name)
	f.Line()
	f.Comment("SchemeGroupVersion is the group version of the types in this package.")
	f.Var().Id("SchemeGroupVersion").Op("=").Qual(schemaPkg, "GroupVersion").Values(
		jen.Id("Group").Op(":").Id("GroupName"), jen.Id("Version").Op(":").Lit(v.Name))
	f.Line()
	f.Var().Defs(
		jen.Comment("SchemeBuilder collects the functions that add this package's types to a scheme."),
		jen.Id("SchemeBuilder").Qual(runtimePkg, "SchemeBuilder"),
		jen.Id("localSchemeBuilder").Op("=").Op("&").Id("SchemeBuilder"),
		jen.Comment("AddToScheme adds this group version to a scheme."),
		jen.Id("AddToScheme").Op("=").Id("localSchemeBuilder").Dot("AddToScheme"),
	)
	f.Line()
	defaulted := false
	for _, r := range v.Resources {
		defaulted = defaulted || r.Hooks.Default
	}
	f.Func().Id("init").Params().BlockFunc(func(b *jen.Group) {
		if defaulted {
			b.Id("localSchemeBuilder").Dot("Register").Call(jen.Id("addKnownTypes"), jen.Id("addDefaultingFuncs"))
		} else {
			b.Id("localSchemeBuilder").Dot("Register").Call(jen.Id("addKnownTypes"))
		}
	})
	f.Line()
	f.Comment("Kind takes an unqualified kind and returns a group-qualified GroupKind.")
	f.Func().Id("Kind").Params(jen.Id("kind").String()).Qual(schemaPkg, "GroupKind").Block(
		jen.Return(jen.Id("SchemeGroupVersion").Dot("WithKind").Call(jen.Id("kind")).Dot("GroupKind").Call()),
	)
	f.Line()
	f.Comment("Resource takes an unqualified resource and returns a group-qualified GroupResource.")
	f.Func().Id("Resource").Params(jen.Id("resource").String()).Qual(schemaPkg, "GroupResource").Block(
		jen.Return(jen.Id("SchemeGroupVersion").Dot("WithResource").Call(jen.Id("resource")).Dot("GroupResource").Call()),
	)
	f.Line()
	f.Comment("addKnownTypes adds the kinds of this package, and the meta types every group version serves, to a scheme.")
	f.Func().Id("addKnownTypes").Params(jen.Id("scheme").Op("*").Qual(runtimePkg, "Scheme")).Error().Block(
		jen.Id("scheme").Dot("AddKnownTypes").CallFunc(func(c *jen.Group) {
			c.Line().Id("SchemeGroupVersion")
			for _, r := range v.Resources {
				c.Line().Op("&").Id(r.Kind).Values()
				c.Line().Op("&").Id(r.ListKind).Values()
			}
			c.Line()
		}),
		jen.Qual(metav1Pkg, "AddToGroupVersion").Call(jen.Id("scheme"), jen.Id("SchemeGroupVersion")),
		jen.Return(jen.Nil()),
	)
	if defaulted {
		f.Line()
		f.Comment("addDefaultingFuncs registers the kinds' Default methods, so that defaults apply whenever an object is decoded.")
		f.Func().Id("addDefaultingFuncs").Params(jen.Id("scheme").Op("*").Qual(runtimePkg, "Scheme")).Error().BlockFunc(func(b *jen.Group) {
			for _, r := range v.Resources {
				if !r.Hooks.Default {
					continue
				}
				b.Id("scheme").Dot("AddTypeDefaultingFunc").Call(
					jen.Op("&").Id(r.Kind).Values(),
					jen.Func().Params(jen.Id("obj").Any()).Block(jen.Id("obj").Assert(jen.Op("*").Id(r.Kind)).Dot("Default").Call()),
				)
			}
			b.Return(jen.Nil())
		})
	}
}
