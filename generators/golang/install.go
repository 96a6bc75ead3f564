package golang

import (
	"fmt"
	"path"
	"slices"
	"strings"

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
		if g.OwnInstall {
			continue // the user's install package registers the group
		}
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

// installsFieldLabels says the install package registers the field selectors of a version's
// selectable fields: the package registers itself, so apigen's register file, which does it
// for the others, is not part of it.
func installsFieldLabels(v *model.Version) bool {
	return v.OwnRegistration && slices.ContainsFunc(v.Resources, func(r *model.Resource) bool { return len(r.SelectableFields) > 0 })
}

// fieldLabelsFunc names the install package's function that registers a version's field
// selectors.
func fieldLabelsFunc(g *model.Group, v *model.Version) string {
	return "add" + strings.ToUpper(versionAlias(g, v)[:1]) + versionAlias(g, v)[1:] + "FieldLabelConversions"
}

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

// groupName names a version's API group by the GroupName constant apigen's register file
// declares in the version package. Where the package registers itself or declares its own
// GroupName (whose value apigen does not know; kubebuilder's declare GroupVersion instead), the
// group is spelled out.
func groupName(g *model.Group, v *model.Version) *jen.Statement {
	if v.OwnRegistration || scope(v.DeclPos).has("GroupName") {
		return jen.Lit(g.Name)
	}
	return jen.Qual(v.Package, "GroupName")
}

// groupVersion names a version's schema.GroupVersion: the SchemeGroupVersion apigen's register
// file declares, or spelled out where the package has its own (see groupName).
func groupVersion(g *model.Group, v *model.Version) *jen.Statement {
	if v.OwnRegistration || scope(v.DeclPos).has("SchemeGroupVersion") {
		return jen.Qual(schemaPkg, "GroupVersion").Values(jen.Id("Group").Op(":").Add(groupName(g, v)), jen.Id("Version").Op(":").Lit(v.Name))
	}
	return jen.Qual(v.Package, "SchemeGroupVersion")
}

func emitInstall(f *jen.File, g *model.Group) {
	versions := g.ByPriority()
	f.PackageComment(fmt.Sprintf("Package install registers the %s API group.", g.Name))
	f.Comment(fmt.Sprintf("Install registers every version of %s in a scheme, in version priority (%s first),", g.Name, versions[0].Name))
	f.Comment("and each kind's hub type as the group's internal version.")
	f.Func().Id("Install").Params(jen.Id("scheme").Op("*").Qual(runtimePkg, "Scheme")).BlockFunc(func(b *jen.Group) {
		for _, v := range versions {
			b.Qual(utilruntimePkg, "Must").Call(jen.Qual(v.Package, "AddToScheme").Call(jen.Id("scheme")))
			if v.InstallRegistersDefaults {
				// The package's own registration leaves its defaults to whoever installs it.
				b.Qual(utilruntimePkg, "Must").Call(jen.Qual(v.Package, "RegisterDefaults").Call(jen.Id("scheme")))
			}
			if v.InstallRegistersValidations {
				b.Qual(utilruntimePkg, "Must").Call(jen.Qual(v.Package, "RegisterValidations").Call(jen.Id("scheme")))
			}
			if installsFieldLabels(v) {
				b.Qual(utilruntimePkg, "Must").Call(jen.Id(fieldLabelsFunc(g, v)).Call(jen.Id("scheme")))
			}
		}
		if in := g.Internal; in != nil && in.OwnRegistration {
			b.Qual(utilruntimePkg, "Must").Call(jen.Qual(in.Package, "AddToScheme").Call(jen.Id("scheme")))
		} else {
			b.Qual(utilruntimePkg, "Must").Call(jen.Id("addInternalTypes").Call(jen.Id("scheme")))
		}
		b.Qual(utilruntimePkg, "Must").Call(jen.Id("scheme").Dot("SetVersionPriority").CallFunc(func(c *jen.Group) {
			for _, v := range versions {
				c.Add(groupVersion(g, v))
			}
		}))
	})
	for _, v := range versions {
		if installsFieldLabels(v) {
			f.Line()
			emitFieldLabelConversions(f, v, fieldLabelsFunc(g, v), func() *jen.Statement { return groupVersion(g, v) })
		}
	}
	if in := g.Internal; in != nil && in.OwnRegistration {
		return
	}
	f.Line()
	if g.Internal == nil {
		if hubsStored(g) {
			f.Comment("addInternalTypes registers each kind's hub, the Go type of its storage version, as the")
			f.Comment("group's internal version too: the server converts every request to it, and from it to")
			f.Comment("the storage version.")
		} else {
			f.Comment("addInternalTypes registers each kind's hub, the Go type of its storage version or of the")
			f.Comment("version whose type has Hub(), as the group's internal version too: the server converts")
			f.Comment("every request to it, and from it to the storage version.")
		}
		f.Comment("")
		f.Comment("Registering an external type as " + `"__internal"` + " is safe: between two versions of one Go type")
		f.Comment("the scheme converts by copying the object and setting its kind, so hub and storage version")
		f.Comment("convert as the identity, with no conversion function; and the internal version is never")
		f.Comment("served or stored, it is only the hub that the other versions convert through.")
	} else {
		f.Comment("addInternalTypes registers each kind's hub type as the internal version: the")
		f.Comment("server converts every request to it, and from it to the storage version.")
	}
	f.Func().Id("addInternalTypes").Params(jen.Id("scheme").Op("*").Qual(runtimePkg, "Scheme")).Error().Block(
		jen.Id("internal").Op(":=").Qual(schemaPkg, "GroupVersion").Values(
			jen.Id("Group").Op(":").Lit(g.Name), jen.Id("Version").Op(":").Qual(runtimePkg, "APIVersionInternal")),
		jen.Id("scheme").Dot("AddKnownTypes").CallFunc(func(c *jen.Group) {
			c.Line().Id("internal")
			for _, h := range g.Hubs() {
				c.Line().Op("&").Qual(h.Version.Package, h.Resource.Kind).Values()
				if h.Resource.ListKind != "" {
					c.Line().Op("&").Qual(h.Version.Package, h.Resource.ListKind).Values()
				}
			}
			c.Line()
		}),
		jen.Return(jen.Nil()),
	)
}

// hubsStored reports whether every kind of group g is stored in its hub's version.
func hubsStored(g *model.Group) bool {
	for _, h := range g.Hubs() {
		if v, _ := g.Stored(h.Resource.Kind); v != h.Version {
			return false
		}
	}
	return true
}
