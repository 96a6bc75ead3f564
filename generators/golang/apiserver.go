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

// APIServer emits pkg/apiserver/zz_generated.apiserver.go: the scheme and codecs of the whole
// project, the APIGroupInfo of every group, and the APIs value that the server runtime serves.
func APIServer() engine.Generator { return apiserverGen{} }

type apiserverGen struct{}

func (apiserverGen) Name() string { return "apiserver" }

func (apiserverGen) Generate(ctx *engine.Context, out *engine.Output) error {
	p := ctx.Project
	f := newFile(path.Join(p.Module, apiserverDir), "apiserver")
	for _, g := range p.Groups {
		importVersions(f, g)
		f.ImportAlias(path.Join(p.Module, installDir(g)), sanitize(g.Package)+"install")
		for _, h := range g.Hubs() {
			f.ImportAlias(path.Join(p.Module, registryDir(g, h.Resource)), sanitize(g.Package)+registryPackage(h.Resource))
		}
	}
	f.ImportName(path.Join(p.Module, serverDir), "server")
	f.ImportName(path.Join(p.Module, openapiDir), "openapi")
	emitAPIServer(f, p)
	return add(ctx, out, path.Join(apiserverDir, "zz_generated.apiserver.go"), f)
}

func emitAPIServer(f *jen.File, p *model.Project) {
	serverPkg := path.Join(p.Module, serverDir)
	f.PackageComment(fmt.Sprintf("Package apiserver wires the API groups of %s into the generic API server.", p.Module))
	f.Var().Defs(
		jen.Comment("Scheme knows every kind this server serves, in every version."),
		jen.Id("Scheme").Op("=").Qual(runtimePkg, "NewScheme").Call(),
		jen.Comment("Codecs encodes and decodes the kinds in Scheme."),
		jen.Id("Codecs").Op("=").Qual(serializerPkg, "NewCodecFactory").Call(jen.Id("Scheme")),
	)
	f.Line()
	f.Func().Id("init").Params().BlockFunc(func(b *jen.Group) {
		for _, g := range p.Groups {
			b.Qual(path.Join(p.Module, installDir(g)), "Install").Call(jen.Id("Scheme"))
		}
		if scaled(p) {
			b.Comment("What /scale subresources serve.")
			b.Qual(serverPkg, "AddScaleToScheme").Call(jen.Id("Scheme"))
		}
		b.Comment("Options and the meta types every server returns (Status, discovery documents) are unversioned.")
		b.Qual(metav1Pkg, "AddToGroupVersion").Call(jen.Id("Scheme"), jen.Qual(schemaPkg, "GroupVersion").Values(jen.Id("Version").Op(":").Lit("v1")))
		b.Id("unversioned").Op(":=").Qual(schemaPkg, "GroupVersion").Values(jen.Id("Group").Op(":").Lit(""), jen.Id("Version").Op(":").Lit("v1"))
		b.Id("Scheme").Dot("AddUnversionedTypes").CallFunc(func(c *jen.Group) {
			c.Id("unversioned")
			for _, t := range []string{"Status", "APIVersions", "APIGroupList", "APIGroup", "APIResourceList"} {
				c.Op("&").Qual(metav1Pkg, t).Values()
			}
		})
	})
	f.Line()
	f.Comment("APIs returns what this server serves, for the server runtime in pkg/cmd/server.")
	f.Func().Id("APIs").Params().Qual(serverPkg, "APIs").Block(
		jen.Return(jen.Qual(serverPkg, "APIs").Add(structLit(
			field{"Name", jen.Lit(p.Name)},
			field{"Scheme", jen.Id("Scheme")},
			field{"Codecs", jen.Id("Codecs")},
			field{"StorageVersions", jen.Qual(serverPkg, "StorageVersions").Values(jen.DictFunc(func(d jen.Dict) {
				for _, g := range p.Groups {
					for _, h := range g.StoredKinds() {
						d[jen.Qual(schemaPkg, "GroupKind").Values(jen.Id("Group").Op(":").Lit(g.Name), jen.Id("Kind").Op(":").Lit(h.Resource.Kind))] = groupVersion(g, h.Version)
					}
				}
			}))},
			field{"OpenAPIDefinitions", jen.Qual(path.Join(p.Module, openapiDir), "GetOpenAPIDefinitions")},
			field{"Schemas", jen.Qual(serverPkg, "Schemas").Values(jen.DictFunc(func(d jen.Dict) {
				for r := range p.Served() {
					_, hub := r.Group.Hub(r.Kind)
					// The served OpenAPI shows the published schema where it differs.
					schemas := "Schemas"
					if len(r.OpenAPISchema) > 0 {
						schemas = "OpenAPISchemas"
					}
					d[jen.Values(jen.Dict{jen.Id("Group"): jen.Lit(r.Group.Name), jen.Id("Version"): jen.Lit(r.Version.Name), jen.Id("Kind"): jen.Lit(r.Kind)})] =
						jen.Qual(path.Join(p.Module, registryDir(r.Group, hub)), schemas).Index(jen.Lit(r.Version.Name))
				}
			}))},
			field{"TypePackages", typePackages(p)},
			field{"ValidationOptions", validationOptions(p)},
			field{"Deprecations", deprecations(p, serverPkg)},
			field{"Install", jen.Id("installAPIGroups")},
			field{"Deployment", jen.Qual(serverPkg, "Deployment").Add(structLit(
				field{"Namespace", jen.Lit(p.Deploy.Namespace)},
				field{"Service", jen.Lit(p.Deploy.Name)},
				field{"ServingCertSecret", jen.Lit(p.Deploy.ServingCertSecret())},
			))},
		))),
	)
	f.Line()
	f.Comment("installAPIGroups installs the REST storage of every API group.")
	f.Func().Id("installAPIGroups").Params(
		jen.Id("s").Op("*").Qual(genericapiserverPkg, "GenericAPIServer"),
		jen.Id("optsGetter").Qual(genericPkg, "RESTOptionsGetter"),
	).Error().BlockFunc(func(b *jen.Group) {
		served := servedGroups(p)
		if len(served) == 0 {
			b.Return(jen.Nil())
		}
		for i, g := range served {
			install := jen.Id(installGroupFunc(g)).Call(jen.Id("s"), jen.Id("optsGetter"))
			if i == len(served)-1 {
				b.Return(install)
			} else {
				b.If(jen.Err().Op(":=").Add(install), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err()))
			}
		}
	})
	for _, g := range servedGroups(p) {
		f.Line()
		emitInstallGroup(f, p, g)
	}
}

// servedGroups are the groups with a version that serves a resource: the generic API server
// would list any other in discovery, with no version.
func servedGroups(p *model.Project) []*model.Group {
	var out []*model.Group
	for _, g := range p.Groups {
		if len(g.Served()) > 0 {
			out = append(out, g)
		}
	}
	return out
}

func installGroupFunc(g *model.Group) string {
	name := sanitize(g.Package)
	return "install" + strings.ToUpper(name[:1]) + name[1:]
}

// emitInstallGroup emits the function that builds one group's APIGroupInfo: one storage per
// kind, shared by every version that declares the kind, converting to and from its hub.
func emitInstallGroup(f *jen.File, p *model.Project, g *model.Group) {
	versions := g.Served()
	serverPkg := path.Join(p.Module, serverDir)
	f.Comment(fmt.Sprintf("%s installs the %s API group.", installGroupFunc(g), g.Name))
	f.Func().Id(installGroupFunc(g)).Params(
		jen.Id("s").Op("*").Qual(genericapiserverPkg, "GenericAPIServer"),
		jen.Id("optsGetter").Qual(genericPkg, "RESTOptionsGetter"),
	).Error().BlockFunc(func(b *jen.Group) {
		b.Id("apiGroupInfo").Op(":=").Qual(genericapiserverPkg, "NewDefaultAPIGroupInfo").Call(
			groupName(g, versions[0]), jen.Id("Scheme"), jen.Qual(metav1Pkg, "ParameterCodec"), jen.Id("Codecs"))
		b.Comment("Protobuf is offered only if every type of the group has protobuf marshalers.")
		b.Id("apiGroupInfo").Dot("NegotiatedSerializer").Op("=").Qual(serverPkg, "GroupSerializer").Call(
			jen.Id("Scheme"), jen.Id("apiGroupInfo").Dot("NegotiatedSerializer"), groupName(g, versions[0]))
		if len(versions) < len(g.Versions) {
			b.Comment("Only the versions that serve a resource: the first is discovery's preferred version.")
			b.Id("apiGroupInfo").Dot("PrioritizedVersions").Op("=").Index().Qual(schemaPkg, "GroupVersion").ValuesFunc(func(vs *jen.Group) {
				for _, v := range versions {
					vs.Add(groupVersion(g, v))
				}
			})
		}
		for _, h := range g.Hubs() {
			r := h.Resource
			reg := path.Join(p.Module, registryDir(g, r))
			if cs := r.Of.CustomStorage; cs != nil {
				v := storageVar(r, "")
				b.Comment(fmt.Sprintf("%s are served by the project's own storage, with the verbs its marker declares.", r.Of.Plural))
				b.List(jen.Id(v), jen.Err()).Op(":=").Qual(reg, "NewStorage").Call(jen.Id("Scheme"))
				b.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err()))
				b.Add(checkVerbs(serverPkg, r.Of.Plural, v, cs.Verbs))
				continue
			}
			if r.Subresources.Status {
				b.List(jen.Id(storageVar(r, "")), jen.Id(storageVar(r, "status")), jen.Err()).Op(":=").Qual(reg, "NewREST").Call(jen.Id("Scheme"), jen.Id("optsGetter"))
			} else {
				b.List(jen.Id(storageVar(r, "")), jen.Err()).Op(":=").Qual(reg, "NewREST").Call(jen.Id("Scheme"), jen.Id("optsGetter"))
			}
			b.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err()))
			if r.Subresources.Scale != nil {
				b.Id(storageVar(r, "scale")).Op(":=").Qual(reg, "NewScaleREST").Call(jen.Id(storageVar(r, "")))
			}
			for _, c := range r.Subresources.Custom {
				v := storageVar(r, c.GoName())
				b.Comment(fmt.Sprintf("%s/%s is served by the project's own storage, with the verbs its marker declares.", r.Of.Plural, c.Name))
				b.Id(v).Op(":=").Qual(reg, "New"+c.GoName()+"REST").Call(jen.Id(storageVar(r, "")))
				b.Add(checkVerbs(serverPkg, r.Of.Plural+"/"+c.Name, v, c.Verbs))
			}
		}
		for _, v := range versions {
			b.Id("apiGroupInfo").Dot("VersionedResourcesStorageMap").Index(jen.Lit(v.Name)).Op("=").Map(jen.String()).Qual(restPkg, "Storage").Values(jen.DictFunc(func(d jen.Dict) {
				for _, r := range v.Resources {
					_, hub := g.Hub(r.Kind)
					d[jen.Lit(r.Of.Plural)] = jen.Id(storageVar(hub, ""))
					if hub.Subresources.Status {
						d[jen.Lit(r.Of.Plural+"/status")] = jen.Id(storageVar(hub, "status"))
					}
					if r.Subresources.Scale != nil {
						d[jen.Lit(r.Of.Plural+"/scale")] = jen.Id(storageVar(hub, "scale"))
					}
					for _, c := range r.Subresources.Custom {
						d[jen.Lit(r.Of.Plural+"/"+c.Name)] = jen.Id(storageVar(hub, c.GoName()))
					}
				}
			}))
		}
		b.Return(jen.Id("s").Dot("InstallAPIGroup").Call(jen.Op("&").Id("apiGroupInfo")))
	})
}

// checkVerbs is the start-up check that the storage in variable v, written by the project,
// serves exactly the verbs its marker declares for the resource path.
func checkVerbs(serverPkg, path, v string, verbs []string) jen.Code {
	return jen.If(jen.Err().Op(":=").Qual(serverPkg, "CheckVerbs").CallFunc(func(args *jen.Group) {
		args.Lit(path)
		args.Id(v)
		for _, verb := range verbs {
			args.Lit(verb)
		}
	}), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err()))
}

// storageVar names the local variable of a kind's storage or of one of its subresources.
func storageVar(r *model.Resource, subresource string) string {
	name := lowerFirst(r.Kind)
	if subresource != "" {
		name += strings.ToUpper(subresource[:1]) + subresource[1:]
	}
	return name + "Storage"
}

// deprecations is the warning of every deprecated resource version (+apigen:deprecatedversion)
// as a server.Deprecations literal, nil when there is none.
func deprecations(p *model.Project, serverPkg string) jen.Code {
	d := jen.Dict{}
	for r := range p.Served() {
		if r.Deprecation != "" {
			d[jen.Values(jen.Dict{jen.Id("Group"): jen.Lit(r.Group.Name), jen.Id("Version"): jen.Lit(r.Version.Name), jen.Id("Resource"): jen.Lit(r.Of.Plural)})] = jen.Lit(r.Deprecation)
		}
	}
	if len(d) == 0 {
		return jen.Nil()
	}
	return jen.Qual(serverPkg, "Deprecations").Values(d)
}

// validationOptions are the validation options of every kind's rules (+k8s:ifEnabled,
// +k8s:ifDisabled), sorted, as a []string literal, which the server makes feature gates of; nil
// (the field left out) when there is none.
func validationOptions(p *model.Project) jen.Code {
	var options []string
	for r := range p.Served() {
		options = append(options, r.ValidationOptions...)
	}
	if len(options) == 0 {
		return nil
	}
	slices.Sort(options)
	return jen.Index().String().ValuesFunc(func(g *jen.Group) {
		for _, o := range slices.Compact(options) {
			g.Lit(o)
		}
	})
}

// scaled reports whether any kind of the project has a scale subresource.
func scaled(p *model.Project) bool {
	for _, g := range p.Groups {
		for _, h := range g.Hubs() {
			if h.Resource.Subresources.Scale != nil {
				return true
			}
		}
	}
	return false
}

// typePackages lists the project's packages besides the version packages whose types the kinds
// use, as their OpenAPI definitions are named (by their model package, else their import path),
// so that the served OpenAPI shows their constraints; nil when there are none.
func typePackages(p *model.Project) jen.Code {
	if len(p.TypePackages) == 0 {
		return nil
	}
	return jen.Index().String().ValuesFunc(func(g *jen.Group) {
		for _, path := range p.TypePackages {
			if name, ok := p.ModelPackages[path]; ok {
				path = name
			}
			g.Lit(path)
		}
	})
}
