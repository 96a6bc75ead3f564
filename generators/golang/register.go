package golang

import (
	"fmt"
	"go/token"
	"path"
	"strings"

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
			if v.OwnRegistration {
				// The package's own register.go registers the rest.
				local := emitLocalSchemeBuilder(f, v)
				if !emitOwnRegistrationHubConversions(f, g, v) && !local {
					continue
				}
				if err := add(ctx, out, path.Join(v.Dir, "zz_generated.register.go"), f); err != nil {
					return err
				}
				continue
			}
			emitRegister(f, g, v)
			if err := add(ctx, out, path.Join(v.Dir, "zz_generated.register.go"), f); err != nil {
				return err
			}
		}
	}
	return nil
}

// scope is what a user's package declares at package level; generated code in the package
// declares nothing it holds.
type scope map[string]token.Position

// free returns name, or name2, name3, ..., the first the package does not declare: the name of
// a generated helper only the generated file refers to.
func (s scope) free(name string) string {
	candidate := name
	for i := 2; s.has(candidate); i++ {
		candidate = fmt.Sprintf("%s%d", name, i)
	}
	return candidate
}

func (s scope) has(name string) bool { _, ok := s[name]; return ok }

// emitRegister emits a version's registration. RegisterDefaults (defaulter-gen's) registers
// the kinds' generated SetObjectDefaults_ functions (Resource.ObjectDefaulter), and the kinds'
// Default hooks, when present, run after them. The conventional exported names
// (GroupName, SchemeGroupVersion, Kind, Resource) are declared only where the package does not
// declare them itself; the helpers get names of their own. In a package registered with
// controller-runtime's SchemeBuilder, the registration functions are added to that builder.
func emitRegister(f *jen.File, g *model.Group, v *model.Version) {
	s := scope(v.DeclPos)
	// The rest of the file names the group and the group version by the identifiers it
	// declares; a package's own GroupName or SchemeGroupVersion may be anything, so where the
	// package declares one the literal is spelled out instead.
	group := func() *jen.Statement { return jen.Lit(g.Name) }
	if !s.has("GroupName") {
		f.Comment("GroupName is the API group of the types in this package.")
		f.Const().Id("GroupName").Op("=").Lit(g.Name)
		f.Line()
		group = func() *jen.Statement { return jen.Id("GroupName") }
	}
	gv := func() *jen.Statement {
		return jen.Qual(schemaPkg, "GroupVersion").Values(jen.Id("Group").Op(":").Add(group()), jen.Id("Version").Op(":").Lit(v.Name))
	}
	if !s.has("SchemeGroupVersion") {
		f.Comment("SchemeGroupVersion is the group version of the types in this package.")
		f.Var().Id("SchemeGroupVersion").Op("=").Add(gv())
		f.Line()
		gv = func() *jen.Statement { return jen.Id("SchemeGroupVersion") }
	}
	addKnownTypes := s.free("addKnownTypes")
	var funcs []jen.Code
	switch {
	case v.ControllerRuntime:
		// The package's init functions register its kinds with SchemeBuilder.Register.
		if !s.has("localSchemeBuilder") {
			f.Comment("localSchemeBuilder is the list of registration functions inside the package's")
			f.Comment("controller-runtime SchemeBuilder: its AddToScheme runs the generated ones too.")
			f.Var().Id("localSchemeBuilder").Op("=").Op("&").Id("SchemeBuilder").Dot("SchemeBuilder")
			f.Line()
		}
		if !s.has("AddToScheme") {
			// operator-sdk's first layout declares SchemeBuilder alone, and its parent package
			// collects each version's SchemeBuilder.AddToScheme; the install package calls
			// AddToScheme, as kubebuilder's groupversion_info.go declares it.
			f.Comment("AddToScheme adds this group version to a scheme.")
			f.Var().Id("AddToScheme").Op("=").Id("SchemeBuilder").Dot("AddToScheme")
			f.Line()
		}
	default:
		defs := []jen.Code{}
		builder := jen.Op("&").Id("SchemeBuilder")
		if s.has("SchemeBuilder") {
			builder = jen.Op("&").Qual(runtimePkg, "SchemeBuilder").Values()
		} else {
			defs = append(defs,
				jen.Comment("SchemeBuilder collects the functions that add this package's types to a scheme."),
				jen.Id("SchemeBuilder").Qual(runtimePkg, "SchemeBuilder"))
		}
		defs = append(defs,
			jen.Id("localSchemeBuilder").Op("=").Add(builder),
			jen.Comment("AddToScheme adds this group version to a scheme."),
			jen.Id("AddToScheme").Op("=").Id("localSchemeBuilder").Dot("AddToScheme"))
		f.Var().Defs(defs...)
		f.Line()
		funcs = append(funcs, jen.Id(addKnownTypes))
	}
	hooked, selectable := false, false
	for _, r := range v.Resources {
		hooked = hooked || r.Hooks.Default
		selectable = selectable || len(r.SelectableFields) > 0
	}
	addDefaultingHooks, addFieldLabelConversions := s.free("addDefaultingHooks"), s.free("addFieldLabelConversions")
	addHubConversions := s.free("addHubConversions")
	funcs = append(funcs, jen.Id("RegisterDefaults"))
	if hooked {
		funcs = append(funcs, jen.Id(addDefaultingHooks))
	}
	if selectable {
		funcs = append(funcs, jen.Id(addFieldLabelConversions))
	}
	spokes := methodSpokes(v)
	if len(spokes) > 0 {
		funcs = append(funcs, jen.Id(addHubConversions))
	}
	f.Func().Id("init").Params().Block(jen.Id("localSchemeBuilder").Dot("Register").Call(funcs...))
	if !s.has("Kind") {
		f.Line()
		f.Comment("Kind takes an unqualified kind and returns a group-qualified GroupKind.")
		f.Func().Id("Kind").Params(jen.Id("kind").String()).Qual(schemaPkg, "GroupKind").Block(
			jen.Return(jen.Qual(schemaPkg, "GroupKind").Values(jen.Id("Group").Op(":").Add(group()), jen.Id("Kind").Op(":").Id("kind"))),
		)
	}
	if !s.has("Resource") {
		f.Line()
		f.Comment("Resource takes an unqualified resource and returns a group-qualified GroupResource.")
		f.Func().Id("Resource").Params(jen.Id("resource").String()).Qual(schemaPkg, "GroupResource").Block(
			jen.Return(jen.Qual(schemaPkg, "GroupResource").Values(jen.Id("Group").Op(":").Add(group()), jen.Id("Resource").Op(":").Id("resource"))),
		)
	}
	if !v.ControllerRuntime {
		f.Line()
		f.Comment(addKnownTypes + " adds the kinds of this package, and the meta types every group version serves, to a scheme.")
		f.Func().Id(addKnownTypes).Params(jen.Id("scheme").Op("*").Qual(runtimePkg, "Scheme")).Error().BlockFunc(func(b *jen.Group) {
			ref := gv()
			if s.has("SchemeGroupVersion") {
				b.Id("gv").Op(":=").Add(ref)
				ref = jen.Id("gv")
			}
			b.Id("scheme").Dot("AddKnownTypes").CallFunc(func(c *jen.Group) {
				c.Line().Add(ref)
				for _, r := range v.Resources {
					c.Line().Op("&").Id(r.Kind).Values()
					if r.ListKind != "" {
						c.Line().Op("&").Id(r.ListKind).Values()
					}
				}
				c.Line()
			})
			b.Qual(metav1Pkg, "AddToGroupVersion").Call(jen.Id("scheme"), ref)
			b.Return(jen.Nil())
		})
	}
	if hooked {
		f.Line()
		emitDefaultingHooks(f, v, addDefaultingHooks)
	}
	if selectable {
		f.Line()
		emitFieldLabelConversions(f, v, addFieldLabelConversions, gv)
	}
	if len(spokes) > 0 {
		f.Line()
		emitHubConversions(f, g, spokes, addHubConversions)
	}
}

// methodSpokes are the kinds of a version that convert to and from their hub with their own
// ConvertTo and ConvertFrom.
func methodSpokes(v *model.Version) []*model.Resource {
	var out []*model.Resource
	for _, r := range v.Resources {
		if r.ConvertsByMethods() {
			out = append(out, r)
		}
	}
	return out
}

// emitLocalSchemeBuilder declares localSchemeBuilder where the package's register.go has a
// SchemeBuilder but not it, for the generated conversions to register with (they run when the
// package's AddToScheme does, since the pointer shares its builder). It reports whether it did.
func emitLocalSchemeBuilder(f *jen.File, v *model.Version) bool {
	if !v.DeclaresLocalSchemeBuilder {
		return false
	}
	f.Comment("localSchemeBuilder is the package's SchemeBuilder, which the generated conversions register with.")
	f.Var().Id("localSchemeBuilder").Op("=").Op("&").Id("SchemeBuilder")
	f.Line()
	return true
}

// emitOwnRegistrationHubConversions fills the register file of a package that registers its
// types itself, when kinds of it convert with their own methods: the conversions are
// registered with the package's localSchemeBuilder, as conversion-gen's are. It reports
// whether there was anything to emit.
func emitOwnRegistrationHubConversions(f *jen.File, g *model.Group, v *model.Version) bool {
	spokes := methodSpokes(v)
	if len(spokes) == 0 {
		return false
	}
	name := scope(v.DeclPos).free("addHubConversions")
	f.Func().Id("init").Params().Block(jen.Id("localSchemeBuilder").Dot("Register").Call(jen.Id(name)))
	f.Line()
	emitHubConversions(f, g, spokes, name)
	return true
}

// emitHubConversions registers, for each kind that converts to and from its hub with its own
// ConvertTo and ConvertFrom (controller-runtime's conversion.Convertible), conversion functions
// that call them, for the kind and item by item for its list (if the version and the kind have
// one): the scheme then converts between this version and the hub, registered as the internal
// version, with the user's code, in process, where a CRD would call a conversion webhook.
func emitHubConversions(f *jen.File, g *model.Group, spokes []*model.Resource, name string) {
	f.Comment(name + " converts the kinds of this version to and from their hub with their own ConvertTo")
	f.Comment("and ConvertFrom methods (controller-runtime's conversion.Convertible), lists item by item.")
	f.Func().Id(name).Params(jen.Id("scheme").Op("*").Qual(runtimePkg, "Scheme")).Error().BlockFunc(func(b *jen.Group) {
		// register adds the conversion from *from to *to, whose body sees them as a and b.
		register := func(from, to func() *jen.Statement, body ...jen.Code) {
			b.If(jen.Err().Op(":=").Id("scheme").Dot("AddConversionFunc").Call(
				jen.Parens(jen.Op("*").Add(from())).Parens(jen.Nil()),
				jen.Parens(jen.Op("*").Add(to())).Parens(jen.Nil()),
				jen.Func().Params(jen.List(jen.Id("a"), jen.Id("b")).Any(), jen.Id("_").Qual(conversionPkg, "Scope")).Error().Block(body...),
			), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err()))
		}
		for _, r := range spokes {
			hub, _ := g.Hub(r.Kind)
			spoke := func() *jen.Statement { return jen.Id(r.Kind) }
			hubKind := func() *jen.Statement { return jen.Qual(hub.Package, r.Kind) }
			spokeList := func() *jen.Statement { return jen.Id(r.ListKind) }
			hubList := func() *jen.Statement { return jen.Qual(hub.Package, r.Of.ListKind) }
			register(spoke, hubKind, jen.Return(jen.Id("a").Assert(jen.Op("*").Add(spoke())).Dot("ConvertTo").Call(jen.Id("b").Assert(jen.Op("*").Add(hubKind())))))
			register(hubKind, spoke, jen.Return(jen.Id("b").Assert(jen.Op("*").Add(spoke())).Dot("ConvertFrom").Call(jen.Id("a").Assert(jen.Op("*").Add(hubKind())))))
			// items converts list a into list b item by item: method (ConvertTo or ConvertFrom)
			// is called on each spoke item with a pointer to the hub item.
			items := func(in, out, outItem func() *jen.Statement, method, spokeList, hubList string) []jen.Code {
				return []jen.Code{
					jen.List(jen.Id("in"), jen.Id("out")).Op(":=").List(jen.Id("a").Assert(jen.Op("*").Add(in())), jen.Id("b").Assert(jen.Op("*").Add(out()))),
					jen.Id("out").Dot("ListMeta").Op("=").Id("in").Dot("ListMeta"),
					jen.Id("out").Dot("Items").Op("=").Nil(),
					jen.If(jen.Id("in").Dot("Items").Op("!=").Nil()).Block(
						jen.Id("out").Dot("Items").Op("=").Make(jen.Index().Add(outItem()), jen.Len(jen.Id("in").Dot("Items"))),
					),
					jen.For(jen.Id("i").Op(":=").Range().Id("in").Dot("Items")).Block(
						jen.If(
							jen.Err().Op(":=").Id(spokeList).Dot("Items").Index(jen.Id("i")).Dot(method).Call(jen.Op("&").Id(hubList).Dot("Items").Index(jen.Id("i"))),
							jen.Err().Op("!=").Nil(),
						).Block(jen.Return(jen.Err())),
					),
					jen.Return(jen.Nil()),
				}
			}
			// A list converts when both ends declare one: the spoke (r.ListKind) and the hub,
			// whose list type is the kind's (a kind served with no list verb may have none).
			if r.ListKind != "" && r.Of.ListKind != "" {
				register(spokeList, hubList, items(spokeList, hubList, hubKind, "ConvertTo", "in", "out")...)
				register(hubList, spokeList, items(hubList, spokeList, spoke, "ConvertFrom", "out", "in")...)
			}
		}
		b.Return(jen.Nil())
	})
}

// emitFieldLabelConversions lets field selectors name the kinds' selectable fields in this
// version, besides metadata.name and metadata.namespace; any other field is refused with the
// list of those supported.
func emitFieldLabelConversions(f *jen.File, v *model.Version, name string, gv func() *jen.Statement) {
	f.Comment(name + " accepts the selectable fields of this version's kinds in field selectors.")
	var selectable []*model.Resource
	for _, r := range v.Resources {
		if len(r.SelectableFields) > 0 {
			selectable = append(selectable, r)
		}
	}
	f.Func().Id(name).Params(jen.Id("scheme").Op("*").Qual(runtimePkg, "Scheme")).Error().BlockFunc(func(b *jen.Group) {
		for i, r := range selectable {
			labels := []string{"metadata.name", "metadata.namespace"}
			for _, sf := range r.SelectableFields {
				labels = append(labels, sf.Label())
			}
			add := jen.Id("scheme").Dot("AddFieldLabelConversionFunc").Call(
				gv().Dot("WithKind").Call(jen.Lit(r.Kind)),
				jen.Func().Params(jen.List(jen.Id("label"), jen.Id("value")).String()).Params(jen.String(), jen.String(), jen.Error()).Block(
					jen.Switch(jen.Id("label")).Block(
						jen.CaseFunc(func(c *jen.Group) {
							for _, l := range labels {
								c.Lit(l)
							}
						}).Block(jen.Return(jen.Id("label"), jen.Id("value"), jen.Nil())),
					),
					jen.Return(jen.Lit(""), jen.Lit(""), jen.Qual("fmt", "Errorf").Call(
						jen.Lit(fmt.Sprintf("field label not supported for %s: %%s (supported: %s)", r.Of.Plural, strings.Join(labels, ", "))), jen.Id("label"))),
				),
			)
			if i == len(selectable)-1 {
				b.Return(add)
			} else {
				b.If(jen.Err().Op(":=").Add(add), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err()))
			}
		}
	})
}

// emitDefaultingHooks registers, for every kind with a Default method, a defaulting function
// that applies the declarative defaults first (as RegisterDefaults would) and then calls the
// method, for the kind and for the items of its list (if it has one).
func emitDefaultingHooks(f *jen.File, v *model.Version, name string) {
	// apply defaults the object ptr points to, which expression value names.
	apply := func(ptr, value *jen.Statement, r *model.Resource) []jen.Code {
		var calls []jen.Code
		if r.ObjectDefaulter {
			calls = append(calls, jen.Id("SetObjectDefaults_"+r.Kind).Call(ptr))
		}
		return append(calls, value.Dot("Default").Call())
	}
	f.Comment(name + " makes decoding call the kinds' Default methods after their declarative defaults.")
	f.Func().Id(name).Params(jen.Id("scheme").Op("*").Qual(runtimePkg, "Scheme")).Error().BlockFunc(func(b *jen.Group) {
		for _, r := range v.Resources {
			if !r.Hooks.Default {
				continue
			}
			b.Id("scheme").Dot("AddTypeDefaultingFunc").Call(
				jen.Op("&").Id(r.Kind).Values(),
				jen.Func().Params(jen.Id("obj").Any()).Block(
					append([]jen.Code{jen.Id("o").Op(":=").Id("obj").Assert(jen.Op("*").Id(r.Kind))}, apply(jen.Id("o"), jen.Id("o"), r)...)...),
			)
			if r.ListKind == "" {
				continue
			}
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
