package golang

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/kube"
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
			if v.OwnRegistration {
				continue // the package's own register.go
			}
			f := newFile(v.Package, goPackageName(v))
			defaults, _ := out.Get(path.Join(v.Dir, kube.DefaultsFile))
			emitRegister(f, g, v, objectDefaulters(defaults))
			if err := add(ctx, out, path.Join(v.Dir, "zz_generated.register.go"), f); err != nil {
				return err
			}
		}
	}
	return nil
}

// objectDefaulter finds defaulter-gen's SetObjectDefaults_<Type> functions.
var objectDefaulter = regexp.MustCompile(`(?m)^func SetObjectDefaults_(\w+)\(`)

// objectDefaulters returns the types defaulter-gen wrote an object defaulter for in a
// version's defaults file (the kinds that have anything to default).
func objectDefaulters(src []byte) map[string]bool {
	out := map[string]bool{}
	for _, m := range objectDefaulter.FindAllSubmatch(src, -1) {
		out[string(m[1])] = true
	}
	return out
}

// emitRegister emits a version's registration. objectDefaulters are the types with a
// generated SetObjectDefaults_ function; RegisterDefaults (defaulter-gen's) registers those,
// and the kinds' Default hooks, when present, run after them.
func emitRegister(f *jen.File, g *model.Group, v *model.Version, objectDefaulters map[string]bool) {
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
	hooked, selectable := false, false
	for _, r := range v.Resources {
		hooked = hooked || r.Hooks.Default
		selectable = selectable || len(r.SelectableFields) > 0
	}
	f.Func().Id("init").Params().BlockFunc(func(b *jen.Group) {
		funcs := []jen.Code{jen.Id("addKnownTypes"), jen.Id("RegisterDefaults")}
		if hooked {
			funcs = append(funcs, jen.Id("addDefaultingHooks"))
		}
		if selectable {
			funcs = append(funcs, jen.Id("addFieldLabelConversions"))
		}
		b.Id("localSchemeBuilder").Dot("Register").Call(funcs...)
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
	if hooked {
		f.Line()
		emitDefaultingHooks(f, v, objectDefaulters)
	}
	if selectable {
		f.Line()
		emitFieldLabelConversions(f, v)
	}
}

// emitFieldLabelConversions lets field selectors name the kinds' selectable fields in this
// version, besides metadata.name and metadata.namespace; any other field is refused with the
// list of those supported.
func emitFieldLabelConversions(f *jen.File, v *model.Version) {
	f.Comment("addFieldLabelConversions accepts the selectable fields of this version's kinds in field selectors.")
	f.Func().Id("addFieldLabelConversions").Params(jen.Id("scheme").Op("*").Qual(runtimePkg, "Scheme")).Error().BlockFunc(func(b *jen.Group) {
		for _, r := range v.Resources {
			if len(r.SelectableFields) == 0 {
				continue
			}
			labels := []string{"metadata.name", "metadata.namespace"}
			for _, sf := range r.SelectableFields {
				labels = append(labels, sf.Label())
			}
			b.Id("err").Op(":=").Id("scheme").Dot("AddFieldLabelConversionFunc").Call(
				jen.Id("SchemeGroupVersion").Dot("WithKind").Call(jen.Lit(r.Kind)),
				jen.Func().Params(jen.List(jen.Id("label"), jen.Id("value")).String()).Params(jen.String(), jen.String(), jen.Error()).Block(
					jen.Switch(jen.Id("label")).Block(
						jen.CaseFunc(func(c *jen.Group) {
							for _, l := range labels {
								c.Lit(l)
							}
						}).Block(jen.Return(jen.Id("label"), jen.Id("value"), jen.Nil())),
					),
					jen.Return(jen.Lit(""), jen.Lit(""), jen.Qual("fmt", "Errorf").Call(
						jen.Lit(fmt.Sprintf("field label not supported for %s: %%s (supported: %s)", r.Plural, strings.Join(labels, ", "))), jen.Id("label"))),
				),
			)
			b.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err()))
		}
		b.Return(jen.Nil())
	})
}

// emitDefaultingHooks registers, for every kind with a Default method, a defaulting function
// that applies the declarative defaults first (as RegisterDefaults would) and then calls the
// method, for the kind and for the items of its list.
func emitDefaultingHooks(f *jen.File, v *model.Version, objectDefaulters map[string]bool) {
	// apply defaults the object ptr points to, which expression value names.
	apply := func(ptr, value *jen.Statement, r *model.Resource) []jen.Code {
		var calls []jen.Code
		if objectDefaulters[r.Kind] {
			calls = append(calls, jen.Id("SetObjectDefaults_"+r.Kind).Call(ptr))
		}
		return append(calls, value.Dot("Default").Call())
	}
	f.Comment("addDefaultingHooks makes decoding call the kinds' Default methods after their declarative defaults.")
	f.Func().Id("addDefaultingHooks").Params(jen.Id("scheme").Op("*").Qual(runtimePkg, "Scheme")).Error().BlockFunc(func(b *jen.Group) {
		for _, r := range v.Resources {
			if !r.Hooks.Default {
				continue
			}
			b.Id("scheme").Dot("AddTypeDefaultingFunc").Call(
				jen.Op("&").Id(r.Kind).Values(),
				jen.Func().Params(jen.Id("obj").Any()).Block(
					append([]jen.Code{jen.Id("o").Op(":=").Id("obj").Assert(jen.Op("*").Id(r.Kind))}, apply(jen.Id("o"), jen.Id("o"), r)...)...),
			)
			b.Id("scheme").Dot("AddTypeDefaultingFunc").Call(
				jen.Op("&").Id(r.ListKind).Values(),
				jen.Func().Params(jen.Id("obj").Any()).Block(
					jen.Id("list").Op(":=").Id("obj").Assert(jen.Op("*").Id(r.ListKind)),
					jen.For(jen.Id("i").Op(":=").Range().Id("list").Dot("Items")).Block(apply(jen.Op("&").Id("list").Dot("Items").Index(jen.Id("i")), jen.Id("list").Dot("Items").Index(jen.Id("i")), r)...),
				),
			)
		}
		b.Return(jen.Nil())
	})
}
