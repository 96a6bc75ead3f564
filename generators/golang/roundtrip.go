package golang

import (
	"cmp"
	"fmt"
	"go/token"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/model"
)

const (
	apiextensionsV1Pkg  = "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apitestingFuzzerPkg = "k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	roundtripPkg        = "k8s.io/apimachinery/pkg/api/apitesting/roundtrip"
	randfillPkg         = "sigs.k8s.io/randfill"
)

// RoundTrip emits pkg/apis/<group>/install/zz_generated.roundtrip_test.go: the test Kubernetes'
// own API groups have (k8s.io/apimachinery's apitesting/roundtrip). It fills each kind's hub
// with random values, converts it to every served version and back through JSON, and fails
// on any difference, so a conversion that drops a field fails the project's own go test.
func RoundTrip() engine.Generator { return roundTrip{} }

type roundTrip struct{}

func (roundTrip) Name() string { return "roundtrip" }

func (roundTrip) Generate(ctx *engine.Context, out *engine.Output) error {
	for _, g := range ctx.Project.Groups {
		dir := installDir(g)
		f := newFile(path.Join(ctx.Project.Module, dir)+"_test", "install_test")
		f.ImportName(path.Join(ctx.Project.Module, dir), "install")
		f.ImportName(randfillPkg, "randfill")
		f.ImportName(roundtripPkg, "roundtrip")
		f.ImportName(apitestingFuzzerPkg, "fuzzer")
		importVersions(f, g)
		if g.Internal != nil {
			f.ImportAlias(g.Internal.Package, sanitize(g.Package))
		}
		if g.Fuzzer != "" {
			f.ImportAlias(g.Fuzzer, sanitize(g.Package)+"fuzzer")
		}
		emitRoundTrip(f, g, path.Join(ctx.Project.Module, dir), ctx.Project.ConversionDrops)
		if err := add(ctx, out, path.Join(dir, "zz_generated.roundtrip_test.go"), f); err != nil {
			return err
		}
	}
	if len(ctx.Project.Groups) == 0 {
		return nil
	}
	return add(ctx, out, path.Join(apiserverDir, "zz_generated.roundtrip_test.go"), emitRESTRoundTrip(ctx))
}

// emitRESTRoundTrip is pkg/apiserver/zz_generated.roundtrip_test.go: the project's server, in
// process, takes random objects of every kind in every served version through its REST API
// and gives back every field (servertest.RoundTrip), filled by the fuzzer functions of the
// groups' codec round trips.
func emitRESTRoundTrip(ctx *engine.Context) *jen.File {
	p := ctx.Project
	apiserverPkg := path.Join(p.Module, apiserverDir)
	servertestPkg := path.Join(p.Module, serverDir, "servertest")
	f := newFile(apiserverPkg+"_test", "apiserver_test")
	f.ImportName(apiserverPkg, "apiserver")
	f.ImportName(servertestPkg, "servertest")
	f.ImportName(randfillPkg, "randfill")
	f.ImportName(apitestingFuzzerPkg, "fuzzer")
	for _, g := range p.Groups {
		importVersions(f, g)
		if g.Internal != nil {
			f.ImportAlias(g.Internal.Package, sanitize(g.Package))
		}
		if g.Fuzzer != "" {
			f.ImportAlias(g.Fuzzer, sanitize(g.Package)+"fuzzer")
		}
	}
	f.Comment("TestRESTRoundTrip starts the API server in process (local mode: embedded etcd in a temporary")
	f.Comment("directory, 127.0.0.1, client-certificate TLS) and writes random objects of every kind, in every")
	f.Comment("served version, through its REST API (JSON, and protobuf where the kind has protobuf methods),")
	f.Comment("then reads them back: nothing the Go type holds may be lost, apart from what kube-apiserver's")
	f.Comment("own rules change (servertest.RoundTrip names each). The objects are those of each group's")
	f.Comment("TestRoundTrip in pkg/apis/<group>/install, with the same fuzzer functions. Run one kind with")
	f.Comment("-run 'TestRESTRoundTrip/<group>/<version>/<Kind>'; with the environment variable")
	f.Comment("ROUNDTRIP_SEEDS=1-50 (servertest.SeedsEnv) each kind takes the objects of fifty seeds.")
	f.Func().Id("TestRESTRoundTrip").Params(jen.Id("t").Op("*").Qual("testing", "T")).BlockFunc(func(b *jen.Group) {
		b.Id("scheme").Op(":=").Qual(apiserverPkg, "Scheme")
		b.Id("cfg").Op(":=").Qual(servertestPkg, "Start").Call(jen.Id("t"), jen.Qual(apiserverPkg, "APIs").Call())
		funcs := jen.Qual(apitestingFuzzerPkg, "MergeFuzzerFuncs").CallFunc(func(c *jen.Group) {
			for _, g := range p.Groups {
				c.Line().Id(sanitize(g.Package) + "Defaulted").Call(jen.Id("scheme"))
				if g.Fuzzer != "" {
					c.Qual(g.Fuzzer, "Funcs")
				}
			}
			c.Line()
		})
		opts := jen.Qual(servertestPkg, "RoundTripOptions").Values()
		if atZero := defaultsAtZero(p, servertestPkg); atZero != nil {
			b.Comment("Fields whose default the server applies where they hold their zero value, which the")
			b.Comment("Go type cannot tell from absent (apigen generate warns at each): sent at their zero")
			b.Comment("value, they read back their default.")
			b.Id("opts").Op(":=").Qual(servertestPkg, "RoundTripOptions").Values(jen.Dict{jen.Id("DefaultsAtZero"): atZero})
			opts = jen.Id("opts")
		}
		b.Qual(servertestPkg, "RoundTrip").Call(jen.Id("t"), jen.Id("cfg"), jen.Id("scheme"), funcs, opts)
	})
	var hides, inlinesPointers bool
	for _, g := range p.Groups {
		f.Line()
		h, i := emitDefaulted(f, g, sanitize(g.Package)+"Defaulted", ctx.Project.ConversionDrops)
		hides, inlinesPointers = hides || h, inlinesPointers || i
	}
	emitHelpers(f, hides, inlinesPointers)
	return f
}

// defaultsAtZero is the list of servertest.RoundTripOptions.DefaultsAtZero: the fields whose
// default the server applies at their zero value (model.FieldDefault.AtZero, of which generate
// warns), by package, type and field; nil when there are none.
func defaultsAtZero(p *model.Project, servertestPkg string) jen.Code {
	type atZero struct {
		pkg string
		d   *model.FieldDefault
	}
	var fields []atZero
	for _, g := range p.Groups {
		for _, v := range g.Versions {
			for _, d := range v.Defaults {
				if d.AtZero && token.IsExported(d.Type) {
					fields = append(fields, atZero{v.Package, d})
				}
			}
		}
	}
	if len(fields) == 0 {
		return nil
	}
	slices.SortFunc(fields, func(a, b atZero) int {
		return cmp.Or(cmp.Compare(a.pkg, b.pkg), cmp.Compare(a.d.Type, b.d.Type), cmp.Compare(a.d.Field, b.d.Field))
	})
	fields = slices.CompactFunc(fields, func(a, b atZero) bool { return a.pkg == b.pkg && a.d.Type == b.d.Type && a.d.Field == b.d.Field })
	return jen.Index().Qual(servertestPkg, "DefaultAtZero").ValuesFunc(func(l *jen.Group) {
		for _, f := range fields {
			l.Line().Values(
				jen.Id("Type").Op(":").Qual("reflect", "TypeFor").Types(jen.Qual(f.pkg, f.d.Type)).Call(),
				jen.Id("Field").Op(":").Lit(f.d.Field),
				jen.Id("Default").Op(":").Lit(f.d.JSON),
			)
		}
		l.Line()
	})
}

func emitRoundTrip(f *jen.File, g *model.Group, installPkg string, drops map[string][]model.HiddenField) {
	fuzzerDir := path.Join(path.Dir(installDir(g)), "fuzzer")
	through := "JSON"
	if g.Protobuf {
		through = "JSON and protobuf"
	}
	f.Comment(fmt.Sprintf("TestRoundTrip fills every kind of %s with random values in its hub version, converts", g.Name))
	f.Comment(fmt.Sprintf("it to each version that serves it and back through %s, and fails on any difference, as", through))
	f.Comment("Kubernetes tests its own API groups: a conversion that loses a field fails it. Values a")
	f.Comment("version cannot hold, or that its defaulting changes, need fuzzer functions of your own:")
	f.Comment(fmt.Sprintf("declare them as Funcs in package %s, as Kubernetes' groups do.", fuzzerDir))
	f.Func().Id("TestRoundTrip").Params(jen.Id("t").Op("*").Qual("testing", "T")).BlockFunc(func(b *jen.Group) {
		b.Id("scheme").Op(":=").Qual(runtimePkg, "NewScheme").Call()
		b.Qual(installPkg, "Install").Call(jen.Id("scheme"))
		funcs := jen.Id("defaulted").Call(jen.Id("scheme"))
		if g.Fuzzer != "" {
			funcs = jen.Qual(apitestingFuzzerPkg, "MergeFuzzerFuncs").Call(funcs, jen.Qual(g.Fuzzer, "Funcs"))
		}
		test := "RoundTripTestForScheme"
		if g.Protobuf {
			test = "RoundTripProtobufTestForScheme"
		}
		b.Qual(roundtripPkg, test).Call(jen.Id("t"), jen.Id("scheme"), funcs)
	})
	f.Line()
	hides, inlinesPointers := emitDefaulted(f, g, "defaulted", drops)
	emitHelpers(f, hides, inlinesPointers)
}

// emitDefaulted emits name, the fuzzer functions that fill each hub kind of g at random and
// default it, empty what no encoding keeps, and fill raw JSON with JSON. It reports whether
// they call zero and nilIfEmpty (emitHelpers).
func emitDefaulted(f *jen.File, g *model.Group, name string, drops map[string][]model.HiddenField) (hides, inlinesPointers bool) {
	f.Comment(name + " fills each hub kind at random, then defaults it as the server defaults every")
	f.Comment("object it decodes: a default filled in on the way back is no loss.")
	hidden := hiddenByType(g)
	dropsAny := false
	for _, v := range g.Versions {
		for _, d := range drops[v.Package] {
			ref := typeRef{v.Package, d.Type}
			hidden[ref] = append(hidden[ref], d)
			dropsAny = true
		}
	}
	hides = dropsAny
	for _, fields := range hidden {
		for _, h := range fields {
			hides, inlinesPointers = hides || !h.EmptyBecomesNil, inlinesPointers || h.EmptyBecomesNil
		}
	}
	if hides {
		f.Comment("Fields that encoding/json never encodes (a field of the same JSON name hides them, under")
		f.Comment("an inlined struct) are left empty: no value of theirs survives JSON.")
	}
	if dropsAny {
		f.Comment("Fields that a version without conversion code has no place for are left empty: such a")
		f.Comment("version converts as a CustomResourceDefinition with conversion strategy None, which drops")
		f.Comment("them (apigen generate warns of each).")
	}
	if inlinesPointers {
		f.Comment("A pointer to an empty value that comes back nil is nil: an inlined pointer to an empty struct")
		f.Comment("(it encodes to no key), a pointer to a nil map or slice (it encodes as null).")
	}
	if g.FillsRawJSON {
		f.Comment("apiextensions' JSON holds raw JSON, which random bytes are not: it holds a JSON string.")
	}
	hubs := map[typeRef]bool{}
	f.Func().Id(name).Params(jen.Id("scheme").Op("*").Qual(runtimePkg, "Scheme")).Qual(apitestingFuzzerPkg, "FuzzerFuncs").Block(
		jen.Return(jen.Func().Params(jen.Qual(serializerPkg, "CodecFactory")).Index().Any().Block(
			jen.Return(jen.Index().Any().ValuesFunc(func(v *jen.Group) {
				for _, h := range g.Hubs() {
					ref := typeRef{h.Version.Package, h.Resource.Kind}
					hubs[ref] = true
					v.Line().Func().Params(
						jen.Id("obj").Op("*").Qual(h.Version.Package, h.Resource.Kind),
						jen.Id("c").Qual(randfillPkg, "Continue"),
					).BlockFunc(func(b *jen.Group) {
						b.Id("c").Dot("FillNoCustom").Call(jen.Id("obj"))
						emitZeroHidden(b, hidden[ref])
						b.Id("scheme").Dot("Default").Call(jen.Id("obj"))
					})
				}
				if g.FillsRawJSON {
					v.Line().Func().Params(
						jen.Id("j").Op("*").Qual(apiextensionsV1Pkg, "JSON"),
						jen.Id("c").Qual(randfillPkg, "Continue"),
					).Block(
						jen.List(jen.Id("j").Dot("Raw"), jen.Id("_")).Op("=").Qual("encoding/json", "Marshal").Call(jen.Id("c").Dot("String").Call(jen.Lit(0))),
					)
				}
				for _, ref := range slices.SortedFunc(maps.Keys(hidden), typeRef.compare) {
					if hubs[ref] {
						continue
					}
					v.Line().Func().Params(
						jen.Id("obj").Op("*").Qual(ref.pkg, ref.name),
						jen.Id("c").Qual(randfillPkg, "Continue"),
					).BlockFunc(func(b *jen.Group) {
						b.Id("c").Dot("FillNoCustom").Call(jen.Id("obj"))
						emitZeroHidden(b, hidden[ref])
					})
				}
				v.Line()
			})),
		)),
	)
	return hides, inlinesPointers
}

// emitHelpers emits the functions emitDefaulted's output calls.
func emitHelpers(f *jen.File, hides, inlinesPointers bool) {
	if hides {
		f.Line()
		f.Comment("zero empties the field p points to.")
		f.Func().Id("zero").Types(jen.Id("T").Any()).Params(jen.Id("p").Op("*").Id("T")).Block(
			jen.Var().Id("z").Id("T"),
			jen.Op("*").Id("p").Op("=").Id("z"),
		)
	}
	if inlinesPointers {
		f.Line()
		f.Comment("nilIfEmpty sets the pointer p points to nil when what it points to is empty.")
		f.Func().Id("nilIfEmpty").Types(jen.Id("T").Any()).Params(jen.Id("p").Op("**").Id("T")).Block(
			jen.If(jen.Op("*").Id("p").Op("!=").Nil().Op("&&").Qual("reflect", "ValueOf").Call(jen.Op("**").Id("p")).Dot("IsZero").Call()).Block(
				jen.Op("*").Id("p").Op("=").Nil(),
			),
		)
	}
}

// typeRef names a Go type.
type typeRef struct{ pkg, name string }

func (r typeRef) compare(o typeRef) int {
	return cmp.Or(strings.Compare(r.pkg, o.pkg), strings.Compare(r.name, o.name))
}

// hiddenByType are the hidden fields (Version.HiddenFields) of the group's versions and of its
// internal version, by type.
func hiddenByType(g *model.Group) map[typeRef][]model.HiddenField {
	out := map[typeRef][]model.HiddenField{}
	versions := slices.Clone(g.Versions)
	if g.Internal != nil {
		versions = append(versions, g.Internal)
	}
	for _, v := range versions {
		for _, f := range v.HiddenFields {
			ref := typeRef{v.Package, f.Type}
			out[ref] = append(out[ref], f)
		}
	}
	return out
}

// emitZeroHidden empties each hidden field of obj, under a nil check of every pointer on
// its way.
func emitZeroHidden(b *jen.Group, fields []model.HiddenField) {
	for _, f := range fields {
		sel := jen.Id("obj")
		var nilChecks []jen.Code
		for i, step := range f.Go {
			sel = sel.Clone().Dot(step.Name)
			if step.Pointer && i < len(f.Go)-1 {
				nilChecks = append(nilChecks, sel.Clone().Op("!=").Nil())
			}
		}
		stmt := jen.Id("zero").Call(jen.Op("&").Add(sel))
		if f.EmptyBecomesNil {
			stmt = jen.Id("nilIfEmpty").Call(jen.Op("&").Add(sel))
		}
		if len(nilChecks) == 0 {
			b.Add(stmt)
			continue
		}
		cond := nilChecks[0]
		for _, c := range nilChecks[1:] {
			cond = jen.Add(cond).Op("&&").Add(c)
		}
		b.If(cond).Block(stmt)
	}
}
