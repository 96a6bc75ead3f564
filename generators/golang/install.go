package golang

import (
	"fmt"
	"path"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/model"
)

// Install emits pkg/apis/<group>/install/zz_generated.install.go: one call that registers
// every version of a group in a scheme, with the storage version's types as the internal hub.
func Install() engine.Generator { return install{} }

type install struct{}

func (install) Name() string { return "install" }

func (install) Generate(ctx *engine.Context, out *engine.Output) error {
	for _, g := range ctx.Project.Groups {
		dir := installDir(g)
		f := newFile(path.Join(ctx.Project.Module, dir), "install")
		importVersions(f, g)
		emitInstall(f, g)
		if err := add(ctx, out, path.Join(dir, "zz_generated.install.go"), f); err != nil {
			return err
		}
	}
	return nil
}

func installDir(g *model.Group) string { return path.Join("pkg/apis", g.Package, "install") }

// versionAlias is the import name of a version package in files that import several:
// wardlev1alpha1.
func versionAlias(g *model.Group, v *model.Version) string {
	return sanitize(g.Package) + sanitize(v.Name)
}

// importVersions declares the import names of a group's version packages.
func importVersions(f *jen.File, g *model.Group) {
	for _, v := range g.Versions {
		f.ImportAlias(v.Package, versionAlias(g, v))
	}
}

// orderedVersions returns the storage version first, then the others in model order: the
// order of preference for clients and for the storage codec.
func orderedVersions(g *model.Group) []*model.Version {
	out := []*model.Version{g.StorageVersion()}
	for _, v := range g.Versions {
		if !v.Storage {
			out = append(out, v)
		}
	}
	return out
}

func emitInstall(f *jen.File, g *model.Group) {
	hub := g.StorageVersion()
	f.PackageComment(fmt.Sprintf("Package install registers the %s API group.", g.Name))
	f.Comment(fmt.Sprintf("Install registers every version of %s in a scheme, preferring %s, and", g.Name, hub.Name))
	f.Comment("registers the storage version's types as the group's internal version.")
	f.Func().Id("Install").Params(jen.Id("scheme").Op("*").Qual(runtimePkg, "Scheme")).BlockFunc(func(b *jen.Group) {
		for _, v := range orderedVersions(g) {
			b.Qual(utilruntimePkg, "Must").Call(jen.Qual(v.Package, "AddToScheme").Call(jen.Id("scheme")))
		}
		b.Qual(utilruntimePkg, "Must").Call(jen.Id("addInternalTypes").Call(jen.Id("scheme")))
		b.Qual(utilruntimePkg, "Must").Call(jen.Id("scheme").Dot("SetVersionPriority").CallFunc(func(c *jen.Group) {
			for _, v := range orderedVersions(g) {
				c.Qual(v.Package, "SchemeGroupVersion")
			}
		}))
	})
	f.Line()
	f.Comment("addInternalTypes registers the storage version's types as the internal version: the")
	f.Comment("server converts every request to it and stores it, so no separate internal types are needed.")
	f.Func().Id("addInternalTypes").Params(jen.Id("scheme").Op("*").Qual(runtimePkg, "Scheme")).Error().Block(
		jen.Id("internal").Op(":=").Qual(schemaPkg, "GroupVersion").Values(
			jen.Id("Group").Op(":").Qual(hub.Package, "GroupName"), jen.Id("Version").Op(":").Qual(runtimePkg, "APIVersionInternal")),
		jen.Id("scheme").Dot("AddKnownTypes").CallFunc(func(c *jen.Group) {
			c.Line().Id("internal")
			for _, r := range hub.Resources {
				c.Line().Op("&").Qual(hub.Package, r.Kind).Values()
				c.Line().Op("&").Qual(hub.Package, r.ListKind).Values()
			}
			c.Line()
		}),
		jen.Return(jen.Nil()),
	)
}
