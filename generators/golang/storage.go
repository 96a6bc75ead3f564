package golang

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/model"
)

// Storage emits pkg/registry/<group>/<resource>/zz_generated.storage.go for every resource of a
// group's storage version: its strategy, its genericregistry.Store and its subresources.
func Storage() engine.Generator { return storageGen{} }

type storageGen struct{}

func (storageGen) Name() string { return "storage" }

func (storageGen) Generate(ctx *engine.Context, out *engine.Output) error {
	for _, g := range ctx.Project.Groups {
		for _, h := range g.Hubs() {
			hub, r := h.Version, h.Resource
			dir := registryDir(g, r)
			// A kind with custom storage is served by the user's storage.go instead of a
			// strategy and etcd store; its schemas still feed the served OpenAPI.
			if r.Of.CustomStorage == nil {
				f := newFile(path.Join(ctx.Project.Module, dir), registryPackage(r))
				emitStorage(f, path.Join(ctx.Project.Module, serverDir), g, hub, r)
				if err := add(ctx, out, path.Join(dir, "zz_generated.storage.go"), f); err != nil {
					return err
				}
			}
			schemas := newFile(path.Join(ctx.Project.Module, dir), registryPackage(r))
			if err := emitSchemas(schemas, g, r); err != nil {
				return err
			}
			if err := add(ctx, out, path.Join(dir, "zz_generated.schema.go"), schemas); err != nil {
				return err
			}
		}
	}
	return nil
}

// resourceEmitter holds what every piece of a resource's storage file refers to.
type resourceEmitter struct {
	server string // import path of the project's server runtime, pkg/cmd/server
	g      *model.Group
	hub    *model.Version
	r      *model.Resource
}

func emitStorage(f *jen.File, server string, g *model.Group, hub *model.Version, r *model.Resource) {
	e := resourceEmitter{server, g, hub, r}
	f.PackageComment(fmt.Sprintf("Package %s is the REST storage of %s.%s.", registryPackage(r), r.Of.Plural, g.Name))
	e.emitStrategy(f)
	if r.Subresources.Status {
		e.emitStatusStrategy(f)
	}
	e.emitSelection(f)
	e.emitREST(f)
	if r.Subresources.Status {
		e.emitStatusREST(f)
	}
	if r.Subresources.Scale != nil {
		e.emitScaleREST(f)
	}
}

func (e resourceEmitter) kind() jen.Code { return jen.Qual(e.hub.Package, e.r.Kind) }

func (e resourceEmitter) kindPtr() *jen.Statement { return jen.Op("*").Qual(e.hub.Package, e.r.Kind) }

func (e resourceEmitter) ctxParam() jen.Code { return jen.Id("ctx").Qual("context", "Context") }

// assert declares a typed variable from a runtime.Object: flunder := obj.(*v1alpha1.Flunder).
func (e resourceEmitter) assert(name, from string) jen.Code {
	return jen.Id(name).Op(":=").Id(from).Assert(e.kindPtr())
}

func (e resourceEmitter) local() string { return localName(e.r.Kind) }

// resetFields builds a fieldpath set per served version of the resource.
func (e resourceEmitter) resetFields(field string) jen.Code {
	return jen.Return(jen.Map(jen.Qual(fieldpathPkg, "APIVersion")).Op("*").Qual(fieldpathPkg, "Set").Values(jen.DictFunc(func(d jen.Dict) {
		for _, v := range e.g.Versions {
			if v.Kind(e.r.Kind) != nil {
				d[jen.Lit(e.g.Name+"/"+v.Name)] = jen.Qual(fieldpathPkg, "NewSet").Call(jen.Qual(fieldpathPkg, "MakePathOrDie").Call(jen.Lit(field)))
			}
		}
	})))
}

// prune drops what kube-apiserver would drop from the object as a custom resource (unknown
// fields of embedded resources and their metadata), before anything else reads it.
func (e resourceEmitter) prune() jen.Code {
	return jen.Id("s").Dot("validation").Dot("Prune").Call(jen.Id("ctx"), jen.Id("obj"))
}

// statusResetFields builds, per served version, the set of fields the status subresource does
// not write: metadata and every top-level field of the version's schema but status.
func (e resourceEmitter) statusResetFields() jen.Code {
	return jen.Return(jen.Map(jen.Qual(fieldpathPkg, "APIVersion")).Op("*").Qual(fieldpathPkg, "Set").Values(jen.DictFunc(func(d jen.Dict) {
		for _, v := range e.g.Versions {
			r := v.Kind(e.r.Kind)
			if r == nil {
				continue
			}
			paths := []jen.Code{jen.Qual(fieldpathPkg, "MakePathOrDie").Call(jen.Lit("metadata"))}
			for _, name := range topLevelFields(r) {
				paths = append(paths, jen.Qual(fieldpathPkg, "MakePathOrDie").Call(jen.Lit(name)))
			}
			d[jen.Lit(e.g.Name+"/"+v.Name)] = jen.Qual(fieldpathPkg, "NewSet").Call(paths...)
		}
	})))
}

// topLevelFields are the JSON names of a kind's own top-level fields (not apiVersion, kind,
// metadata or status), sorted.
func topLevelFields(r *model.Resource) []string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(r.Schema, &s)
	var out []string
	for name := range s.Properties {
		switch name {
		case "apiVersion", "kind", "metadata", "status":
		default:
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// fallbackVersion is the version whose schema checks objects written without a request
// version (by the server itself): the kind's storage version.
func (e resourceEmitter) fallbackVersion() string {
	if v, _ := e.g.Stored(e.r.Kind); v != nil {
		return v.Name
	}
	return ""
}

// declarative says whether some version of the kind has +k8s: validation rules, which the
// strategies then run (for the version each request uses).
func (e resourceEmitter) declarative() bool {
	for _, v := range e.g.Versions {
		if r := v.Kind(e.r.Kind); r != nil && r.DeclarativeValidation {
			return true
		}
	}
	return false
}

// validationOptions are the validation options the rules of the kind's versions depend on.
func (e resourceEmitter) validationOptions() []string {
	var out []string
	for _, v := range e.g.Versions {
		if r := v.Kind(e.r.Kind); r != nil {
			out = append(out, r.ValidationOptions...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (e resourceEmitter) emitStrategy(f *jen.File) {
	r, local := e.r, e.local()
	obj := jen.Id("obj").Qual(runtimePkg, "Object")
	f.Comment(fmt.Sprintf("strategy is how %s are created, updated and deleted.", r.Of.Plural))
	fields := []jen.Code{
		jen.Qual(runtimePkg, "ObjectTyper"),
		jen.Qual(namesPkg, "NameGenerator"),
		jen.Comment("validation enforces the schema of each version: its validation markers and CEL rules."),
		jen.Id("validation").Op("*").Qual(e.server, "SchemaValidation"),
	}
	typer := jen.Id("typer").Qual(runtimePkg, "ObjectTyper")
	values := []jen.Code{jen.Id("typer"), jen.Qual(namesPkg, "SimpleNameGenerator"), jen.Id("validation")}
	strategies := []string{"RESTCreateStrategy", "RESTUpdateStrategy", "RESTDeleteStrategy"}
	if e.declarative() {
		fields = append(fields,
			jen.Comment("DeclarativeValidation runs the +k8s: validation rules of the version a request uses."),
			jen.Qual(e.server, "DeclarativeValidation"))
		typer = jen.Id("scheme").Op("*").Qual(runtimePkg, "Scheme")
		args := []jen.Code{jen.Id("scheme")}
		for _, o := range e.validationOptions() {
			args = append(args, jen.Lit(o))
		}
		values = []jen.Code{jen.Id("scheme"), jen.Qual(namesPkg, "SimpleNameGenerator"), jen.Id("validation"), jen.Qual(e.server, "NewDeclarativeValidation").Call(args...)}
		strategies = append(strategies, "DeclarativeValidationStrategy")
	}
	f.Type().Id("strategy").Struct(fields...)
	f.Line()
	if r.Subresources.Status {
		strategies = append(strategies, "ResetFieldsStrategy")
	}
	emitAssertions(f, "strategy", jen.Id("strategy").Values(), strategies...)
	f.Line()
	f.Func().Id("newStrategy").Params(typer, jen.Id("validation").Op("*").Qual(e.server, "SchemaValidation")).Id("strategy").Block(
		jen.Return(jen.Id("strategy").Values(values...)),
	)
	f.Line()
	f.Comment(fmt.Sprintf("NamespaceScoped reports whether %s live in a namespace.", r.Of.Plural))
	f.Func().Params(jen.Id("strategy")).Id("NamespaceScoped").Params().Bool().Block(jen.Return(jen.Lit(r.Of.Namespaced())))
	if r.Subresources.Status {
		f.Line()
		f.Comment("GetResetFields returns the fields that server-side apply leaves alone on the main resource:")
		f.Comment("status belongs to the status subresource.")
		f.Func().Params(jen.Id("strategy")).Id("GetResetFields").Params().Map(jen.Qual(fieldpathPkg, "APIVersion")).Op("*").Qual(fieldpathPkg, "Set").Block(e.resetFields("status"))
	}
	f.Line()
	if r.Subresources.Status {
		f.Comment("PrepareForCreate clears status, which only the status subresource sets, and starts the generation at 1.")
	} else {
		f.Comment("PrepareForCreate starts the generation at 1.")
	}
	f.Func().Params(jen.Id("s").Id("strategy")).Id("PrepareForCreate").Params(e.ctxParam(), obj).BlockFunc(func(b *jen.Group) {
		b.Add(e.prune())
		b.Add(e.assert(local, "obj"))
		if r.Subresources.Status {
			b.Add(e.clearStatus(local))
		}
		b.Id(local).Dot("Generation").Op("=").Lit(1)
		if r.Hooks.PrepareForCreate {
			b.Id(local).Dot("PrepareForCreate").Call(jen.Id("ctx"))
		}
	})
	f.Line()
	e.emitPrepareForUpdate(f)
	f.Line()
	f.Comment(fmt.Sprintf("Validate checks a new %s as kube-apiserver checks a custom resource: its metadata and its", r.Of.Singular))
	f.Comment("version's schema.")
	commentHooks(f, hook{r.Hooks.Validate, "Validate"})
	f.Func().Params(jen.Id("s").Id("strategy")).Id("Validate").Params(e.ctxParam(), obj).Qual(fieldPkg, "ErrorList").BlockFunc(func(b *jen.Group) {
		if !r.Hooks.Validate {
			b.Return(jen.Id("s").Dot("validation").Dot("Validate").Call(jen.Id("ctx"), jen.Id("obj")))
			return
		}
		b.Add(e.assert(local, "obj"))
		b.Id("allErrs").Op(":=").Id("s").Dot("validation").Dot("Validate").Call(jen.Id("ctx"), jen.Id("obj"))
		b.Return(jen.Append(jen.Id("allErrs"), jen.Id(local).Dot("Validate").Call(jen.Id("ctx")).Op("...")))
	})
	f.Line()
	f.Comment(fmt.Sprintf("WarningsOnCreate returns warnings for the creation of a %s.", r.Of.Singular))
	f.Func().Params(jen.Id("strategy")).Id("WarningsOnCreate").Params(e.ctxParam(), obj).Index().String().BlockFunc(func(b *jen.Group) {
		if r.Hooks.WarningsOnCreate {
			b.Return(jen.Id("obj").Assert(e.kindPtr()).Dot("WarningsOnCreate").Call(jen.Id("ctx")))
		} else {
			b.Return(jen.Nil())
		}
	})
	f.Line()
	f.Comment("Canonicalize normalizes an object after validation.")
	f.Func().Params(jen.Id("strategy")).Id("Canonicalize").Params(obj).BlockFunc(func(b *jen.Group) {
		if r.Hooks.Canonicalize {
			b.Id("obj").Assert(e.kindPtr()).Dot("Canonicalize").Call()
		}
	})
	f.Line()
	f.Comment("AllowCreateOnUpdate is false: an update of a missing object is an error, not a create.")
	f.Func().Params(jen.Id("strategy")).Id("AllowCreateOnUpdate").Params(e.ctxParam()).Bool().Block(jen.Return(jen.False()))
	f.Line()
	f.Comment("AllowUnconditionalUpdate is false, as for a custom resource: an update must name the resourceVersion it")
	f.Comment("changes, so that it never overwrites a change it has not seen.")
	f.Func().Params(jen.Id("strategy")).Id("AllowUnconditionalUpdate").Params(e.ctxParam()).Bool().Block(jen.Return(jen.False()))
	f.Line()
	f.Comment(fmt.Sprintf("ValidateUpdate checks an update of a %s as kube-apiserver checks a custom resource's: its", r.Of.Singular))
	f.Comment("metadata, immutable parts unchanged, and the version's schema, where an unchanged invalid value")
	f.Comment("does not fail the update.")
	commentHooks(f, hook{r.Hooks.Validate, "Validate"}, hook{r.Hooks.ValidateUpdate, "ValidateUpdate"})
	f.Func().Params(jen.Id("s").Id("strategy")).Id("ValidateUpdate").Params(e.ctxParam(), jen.Id("obj"), jen.Id("old").Qual(runtimePkg, "Object")).Qual(fieldPkg, "ErrorList").BlockFunc(func(b *jen.Group) {
		if !r.Hooks.Validate && !r.Hooks.ValidateUpdate {
			b.Return(jen.Id("s").Dot("validation").Dot("ValidateUpdate").Call(jen.Id("ctx"), jen.Id("obj"), jen.Id("old")))
			return
		}
		newName, oldName := "new"+r.Kind, "old"+r.Kind
		b.Add(e.assert(newName, "obj"))
		if r.Hooks.ValidateUpdate {
			b.Add(e.assert(oldName, "old"))
		}
		b.Id("allErrs").Op(":=").Id("s").Dot("validation").Dot("ValidateUpdate").Call(jen.Id("ctx"), jen.Id("obj"), jen.Id("old"))
		if r.Hooks.Validate {
			b.Id("allErrs").Op("=").Append(jen.Id("allErrs"), jen.Id(newName).Dot("Validate").Call(jen.Id("ctx")).Op("..."))
		}
		if r.Hooks.ValidateUpdate {
			b.Id("allErrs").Op("=").Append(jen.Id("allErrs"), jen.Id(newName).Dot("ValidateUpdate").Call(jen.Id("ctx"), jen.Id(oldName)).Op("..."))
		}
		b.Return(jen.Id("allErrs"))
	})
	f.Line()
	f.Comment(fmt.Sprintf("WarningsOnUpdate returns warnings for an update of a %s.", r.Of.Singular))
	f.Func().Params(jen.Id("strategy")).Id("WarningsOnUpdate").Params(e.ctxParam(), jen.Id("obj"), jen.Id("old").Qual(runtimePkg, "Object")).Index().String().BlockFunc(func(b *jen.Group) {
		if r.Hooks.WarningsOnUpdate {
			b.Return(jen.Id("obj").Assert(e.kindPtr()).Dot("WarningsOnUpdate").Call(jen.Id("ctx"), jen.Id("old").Assert(e.kindPtr())))
		} else {
			b.Return(jen.Nil())
		}
	})
}

// A hook is a method of the user's type that a strategy method calls, if the type has it.
type hook struct {
	has    bool
	method string
}

// commentHooks ends a strategy method's comment with the hooks it calls after its own checks.
func commentHooks(f *jen.File, hooks ...hook) {
	var methods []string
	for _, h := range hooks {
		if h.has {
			methods = append(methods, h.method)
		}
	}
	switch len(methods) {
	case 0:
	case 1:
		f.Comment("Then its " + methods[0] + " method checks it.")
	default:
		f.Comment("Then its " + strings.Join(methods, " and ") + " methods check it.")
	}
}

// emitAssertions declares that value, of the type named typ, implements each of the rest
// package's interfaces ifaces: the API server finds what a type does (its verbs, short names,
// categories, reset fields) by type assertions, so a method that stops matching its interface
// after a Kubernetes upgrade would be dropped silently; checked here, it fails the build.
func emitAssertions(f *jen.File, typ string, value jen.Code, ifaces ...string) {
	f.Comment(fmt.Sprintf("The interfaces the API server uses %s through, checked when the package compiles.", typ))
	f.Var().DefsFunc(func(g *jen.Group) {
		for _, iface := range ifaces {
			g.Id("_").Qual(restPkg, iface).Op("=").Add(value)
		}
	})
}

// clearStatus resets an object's status to its zero value.
func (e resourceEmitter) clearStatus(local string) jen.Code {
	switch t := e.r.StatusType; {
	case strings.HasPrefix(t, "*"):
		return jen.Id(local).Dot("Status").Op("=").Nil()
	case t != "":
		return jen.Id(local).Dot("Status").Op("=").Qual(e.hub.Package, t).Values()
	default:
		return jen.Id(local).Dot("Status").Op("=").Qual(e.hub.Package, e.r.Kind).Values().Dot("Status")
	}
}

func (e resourceEmitter) emitPrepareForUpdate(f *jen.File) {
	r := e.r
	newName, oldName := "new"+r.Kind, "old"+r.Kind
	if r.Subresources.Status {
		f.Comment("PrepareForUpdate keeps the stored status, which only the status subresource changes, and bumps the")
		f.Comment("generation on any other change outside metadata, as for a custom resource.")
	} else {
		f.Comment("PrepareForUpdate bumps the generation on any change outside metadata, as for a custom resource.")
	}
	f.Func().Params(jen.Id("s").Id("strategy")).Id("PrepareForUpdate").Params(e.ctxParam(), jen.Id("obj"), jen.Id("old").Qual(runtimePkg, "Object")).BlockFunc(func(b *jen.Group) {
		b.Add(e.prune())
		b.Add(e.assert(newName, "obj"))
		b.Add(e.assert(oldName, "old"))
		if r.Subresources.Status {
			b.Id(newName).Dot("Status").Op("=").Id(oldName).Dot("Status")
		}
		if r.Hooks.PrepareForUpdate {
			b.Id(newName).Dot("PrepareForUpdate").Call(jen.Id("ctx"), jen.Id(oldName))
		}
		b.Comment("Compare shallow copies without metadata: every other field, whatever the kind has.")
		b.List(jen.Id("newContent"), jen.Id("oldContent")).Op(":=").List(jen.Op("*").Id(newName), jen.Op("*").Id(oldName))
		b.List(jen.Id("newContent").Dot("TypeMeta"), jen.Id("oldContent").Dot("TypeMeta")).Op("=").List(jen.Qual(metav1Pkg, "TypeMeta").Values(), jen.Qual(metav1Pkg, "TypeMeta").Values())
		b.List(jen.Id("newContent").Dot("ObjectMeta"), jen.Id("oldContent").Dot("ObjectMeta")).Op("=").List(jen.Qual(metav1Pkg, "ObjectMeta").Values(), jen.Qual(metav1Pkg, "ObjectMeta").Values())
		b.If(jen.Op("!").Qual(apiequalityPkg, "Semantic").Dot("DeepEqual").Call(jen.Id("newContent"), jen.Id("oldContent"))).Block(
			jen.Id(newName).Dot("Generation").Op("=").Id(oldName).Dot("Generation").Op("+").Lit(1),
		)
	})
}

func (e resourceEmitter) emitStatusStrategy(f *jen.File) {
	r := e.r
	newName, oldName := "new"+r.Kind, "old"+r.Kind
	f.Line()
	f.Comment(fmt.Sprintf("statusStrategy is how the status subresource of %s is updated: it changes status only.", r.Of.Plural))
	f.Type().Id("statusStrategy").Struct(jen.Id("strategy"))
	f.Line()
	emitAssertions(f, "statusStrategy", jen.Id("statusStrategy").Values(), "RESTUpdateStrategy", "ResetFieldsStrategy")
	f.Line()
	f.Comment("GetResetFields returns the fields that server-side apply leaves alone on the status subresource:")
	f.Comment("everything the subresource does not write, metadata and every field but status.")
	f.Func().Params(jen.Id("statusStrategy")).Id("GetResetFields").Params().Map(jen.Qual(fieldpathPkg, "APIVersion")).Op("*").Qual(fieldpathPkg, "Set").Block(e.statusResetFields())
	f.Line()
	f.Comment("PrepareForUpdate keeps everything of the stored object but the new status (and the managed")
	f.Comment("fields, which record who set it). What was sent is pruned first, as kube-apiserver prunes a")
	f.Comment("request: the stored object, which may hold what the request's version cannot, is not.")
	f.Func().Params(jen.Id("s").Id("statusStrategy")).Id("PrepareForUpdate").Params(e.ctxParam(), jen.Id("obj"), jen.Id("old").Qual(runtimePkg, "Object")).Block(
		e.prune(),
		e.assert(newName, "obj"),
		e.assert(oldName, "old"),
		jen.List(jen.Id("status"), jen.Id("managedFields")).Op(":=").List(jen.Id(newName).Dot("Status"), jen.Id(newName).Dot("ManagedFields")),
		jen.Op("*").Id(newName).Op("=").Op("*").Id(oldName).Dot("DeepCopy").Call(),
		jen.List(jen.Id(newName).Dot("Status"), jen.Id(newName).Dot("ManagedFields")).Op("=").List(jen.Id("status"), jen.Id("managedFields")),
	)
	f.Line()
	f.Comment("ValidateUpdate checks a status write as kube-apiserver checks a custom resource's: immutable")
	f.Comment("metadata unchanged, the status against the version's schema and the object's CEL rules, where an")
	f.Comment("unchanged invalid value does not fail it.")
	commentHooks(f, hook{r.Hooks.ValidateStatusUpdate, "ValidateStatusUpdate"})
	f.Func().Params(jen.Id("s").Id("statusStrategy")).Id("ValidateUpdate").Params(e.ctxParam(), jen.Id("obj"), jen.Id("old").Qual(runtimePkg, "Object")).Qual(fieldPkg, "ErrorList").BlockFunc(func(b *jen.Group) {
		if !r.Hooks.ValidateStatusUpdate {
			b.Return(jen.Id("s").Dot("validation").Dot("ValidateStatusUpdate").Call(jen.Id("ctx"), jen.Id("obj"), jen.Id("old")))
			return
		}
		b.Add(e.assert(newName, "obj"))
		b.Add(e.assert(oldName, "old"))
		b.Id("allErrs").Op(":=").Id("s").Dot("validation").Dot("ValidateStatusUpdate").Call(jen.Id("ctx"), jen.Id("obj"), jen.Id("old"))
		b.Return(jen.Append(jen.Id("allErrs"), jen.Id(newName).Dot("ValidateStatusUpdate").Call(jen.Id("ctx"), jen.Id(oldName)).Op("...")))
	})
	f.Line()
	f.Comment("WarningsOnUpdate returns no warnings for status updates.")
	f.Func().Params(jen.Id("statusStrategy")).Id("WarningsOnUpdate").Params(e.ctxParam(), jen.Id("obj"), jen.Id("old").Qual(runtimePkg, "Object")).Index().String().Block(jen.Return(jen.Nil()))
}

// emitSelection emits the attribute and predicate functions that label and field selectors use.
func (e resourceEmitter) emitSelection(f *jen.File) {
	r, local := e.r, e.local()
	f.Line()
	f.Comment(fmt.Sprintf("getAttrs returns the labels and fields that lists and watches of %s select on.", r.Of.Plural))
	f.Func().Id("getAttrs").Params(jen.Id("obj").Qual(runtimePkg, "Object")).Params(jen.Qual(labelsPkg, "Set"), jen.Qual(fieldsPkg, "Set"), jen.Error()).BlockFunc(func(b *jen.Group) {
		b.List(jen.Id(local), jen.Id("ok")).Op(":=").Id("obj").Assert(e.kindPtr())
		b.If(jen.Op("!").Id("ok")).Block(
			jen.Return(jen.Nil(), jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("not a "+r.Kind+": %T"), jen.Id("obj"))),
		)
		// The set is not called fields: that would shadow the fields package.
		b.Id("selectable").Op(":=").Qual(genericPkg, "ObjectMetaFieldsSet").Call(jen.Op("&").Id(local).Dot("ObjectMeta"), jen.Lit(r.Of.Namespaced()))
		for _, sf := range r.SelectableFields {
			b.Add(e.selectableValue(local, sf))
		}
		b.Return(jen.Id(local).Dot("Labels"), jen.Id("selectable"), jen.Nil())
	})
	f.Line()
	f.Comment("match returns the predicate that a list or watch with these selectors filters by.")
	f.Func().Id("match").Params(jen.Id("label").Qual(labelsPkg, "Selector"), jen.Id("field").Qual(fieldsPkg, "Selector")).Qual(storagePkg, "SelectionPredicate").Block(
		jen.Return(jen.Qual(storagePkg, "SelectionPredicate").Add(structLit(
			field{"Label", jen.Id("label")},
			field{"Field", jen.Id("field")},
			field{"GetAttrs", jen.Id("getAttrs")},
		))),
	)
}

func (e resourceEmitter) emitREST(f *jen.File) {
	r, hub := e.r, e.hub
	// Not the package's Resource(): a package that registers itself may not declare one
	// (cluster-api's core/v1beta2 declares only GroupVersion).
	resource := func(name string) jen.Code {
		return jen.Qual(schemaPkg, "GroupResource").Values(jen.Id("Group").Op(":").Add(groupName(e.g, hub)), jen.Id("Resource").Op(":").Lit(name))
	}
	f.Line()
	f.Comment(fmt.Sprintf("REST is the etcd-backed storage of %s.", r.Of.Plural))
	f.Type().Id("REST").Struct(jen.Op("*").Qual(genericregistryPkg, "Store"))
	f.Line()
	ifaces := []string{"StandardStorage", "Scoper", "TableConvertor", "SingularNameProvider"}
	if r.Subresources.Status {
		ifaces = append(ifaces, "ResetFieldsStrategy")
	}
	if len(r.Of.ShortNames) > 0 {
		ifaces = append(ifaces, "ShortNamesProvider")
	}
	if len(r.Of.Categories) > 0 {
		ifaces = append(ifaces, "CategoriesProvider")
	}
	emitAssertions(f, "REST", jen.Op("&").Id("REST").Values(), ifaces...)
	f.Line()
	results := []jen.Code{jen.Op("*").Id("REST")}
	doc := fmt.Sprintf("NewREST returns the storage of %s.", r.Of.Plural)
	if r.Subresources.Status {
		results = append(results, jen.Op("*").Id("StatusREST"))
		doc = fmt.Sprintf("NewREST returns the storage of %s and of their status subresource.", r.Of.Plural)
	}
	results = append(results, jen.Error())
	fail := func() jen.Code {
		if r.Subresources.Status {
			return jen.Return(jen.Nil(), jen.Nil(), jen.Err())
		}
		return jen.Return(jen.Nil(), jen.Err())
	}
	f.Comment(doc)
	f.Func().Id("NewREST").Params(jen.Id("scheme").Op("*").Qual(runtimePkg, "Scheme"), jen.Id("optsGetter").Qual(genericPkg, "RESTOptionsGetter")).Params(results...).BlockFunc(func(b *jen.Group) {
		b.Comment("What each version accepts: the schema of its validation markers, enforced as for a CRD.")
		kind := []field{{"Group", groupName(e.g, hub)}, {"Kind", jen.Lit(r.Kind)}}
		if r.Of.Namespaced() {
			kind = append(kind, field{"Namespaced", jen.True()})
		}
		if r.Subresources.Status {
			kind = append(kind, field{"StatusSubresource", jen.True()})
		}
		kind = append(kind, field{"StorageVersion", jen.Lit(e.fallbackVersion())}, field{"Schemas", jen.Id("Schemas")})
		if typed := e.versionsWhere(func(r *model.Resource) bool { return r.SchemaSatisfiedByType }); len(typed) > 0 {
			kind = append(kind, field{"SchemaSatisfiedByType", jen.Index().String().Values(typed...)})
		}
		if typed := e.versionsWhere(func(r *model.Resource) bool { return r.SchemaSatisfiedOutsideStatus }); len(typed) > 0 {
			kind = append(kind, field{"SchemaSatisfiedOutsideStatus", jen.Index().String().Values(typed...)})
		}
		if scales := e.scales(); len(scales) > 0 {
			kind = append(kind, field{"Scales", jen.Map(jen.String()).Qual(e.server, "ScalePaths").Values(scales)})
		}
		b.List(jen.Id("validation"), jen.Err()).Op(":=").Qual(e.server, "NewSchemaValidation").Call(
			jen.Id("scheme"), jen.Qual(e.server, "ValidatedKind").Add(structLit(kind...)))
		b.If(jen.Err().Op("!=").Nil()).Block(fail())
		b.Id("strategy").Op(":=").Id("newStrategy").Call(jen.Id("scheme"), jen.Id("validation"))
		b.Comment("What kubectl get prints in each version: its print columns, or NAME and AGE.")
		b.List(jen.Id("table"), jen.Err()).Op(":=").Qual(e.server, "NewTableConvertor").Call(jen.Id("scheme"), groupName(e.g, hub), e.columns())
		b.If(jen.Err().Op("!=").Nil()).Block(fail())
		fields := []field{
			{"NewFunc", jen.Func().Params().Qual(runtimePkg, "Object").Block(jen.Return(jen.Op("&").Add(e.kind()).Values()))},
			{"NewListFunc", jen.Func().Params().Qual(runtimePkg, "Object").Block(jen.Return(jen.Op("&").Qual(hub.Package, r.ListKind).Values()))},
			{"PredicateFunc", jen.Id("match")},
			{"DefaultQualifiedResource", resource(r.Of.Plural)},
			{"SingularQualifiedResource", resource(r.Of.Singular)},
			{"CreateStrategy", jen.Id("strategy")},
			{"UpdateStrategy", jen.Id("strategy")},
			{"DeleteStrategy", jen.Id("strategy")},
		}
		if r.Subresources.Status {
			fields = append(fields, field{"ResetFieldsStrategy", jen.Id("strategy")})
		}
		fields = append(fields, field{"TableConvertor", jen.Id("table")})
		b.Id("store").Op(":=").Op("&").Qual(genericregistryPkg, "Store").Add(structLit(fields...))
		b.Id("options").Op(":=").Op("&").Qual(genericPkg, "StoreOptions").Add(structLit(
			field{"RESTOptions", jen.Id("optsGetter")},
			field{"AttrFunc", jen.Id("getAttrs")},
		))
		b.If(jen.Err().Op(":=").Id("store").Dot("CompleteWithOptions").Call(jen.Id("options")), jen.Err().Op("!=").Nil()).Block(fail())
		if r.Subresources.Status {
			b.Line()
			b.Comment("The status subresource shares the store and changes only status.")
			b.Id("statusStore").Op(":=").Op("*").Id("store")
			b.Id("statusStore").Dot("UpdateStrategy").Op("=").Id("statusStrategy").Values(jen.Id("strategy"))
			b.Id("statusStore").Dot("ResetFieldsStrategy").Op("=").Id("statusStrategy").Values(jen.Id("strategy"))
			b.Return(jen.Op("&").Id("REST").Values(jen.Id("store")), jen.Op("&").Id("StatusREST").Values(jen.Dict{jen.Id("store"): jen.Op("&").Id("statusStore")}), jen.Nil())
		} else {
			b.Return(jen.Op("&").Id("REST").Values(jen.Id("store")), jen.Nil())
		}
	})
	if len(r.Of.ShortNames) > 0 {
		f.Line()
		f.Comment("ShortNames implements rest.ShortNamesProvider: kubectl accepts these in place of the resource name.")
		f.Func().Params(jen.Op("*").Id("REST")).Id("ShortNames").Params().Index().String().Block(
			jen.Return(jen.Index().String().ValuesFunc(func(g *jen.Group) {
				for _, s := range r.Of.ShortNames {
					g.Lit(s)
				}
			})),
		)
	}
	if len(r.Of.Categories) > 0 {
		f.Line()
		f.Comment("Categories implements rest.CategoriesProvider: kubectl get <category> includes this resource.")
		f.Func().Params(jen.Op("*").Id("REST")).Id("Categories").Params().Index().String().Block(
			jen.Return(jen.Index().String().ValuesFunc(func(g *jen.Group) {
				for _, s := range r.Of.Categories {
					g.Lit(s)
				}
			})),
		)
	}
}

// selectableValue sets selectable[label] to a selectable field's value, "" when a pointer on the
// way is nil.
func (e resourceEmitter) selectableValue(local string, f model.SelectableField) jen.Code {
	expr := jen.Id(local)
	var nilChecks []jen.Code
	for i, step := range f.Go {
		expr = expr.Clone().Dot(step.Name)
		if step.Pointer && i < len(f.Go)-1 {
			nilChecks = append(nilChecks, expr.Clone().Op("!=").Nil())
		}
	}
	value := expr
	if last := f.Go[len(f.Go)-1]; last.Pointer {
		nilChecks = append(nilChecks, expr.Clone().Op("!=").Nil())
		value = jen.Op("*").Add(expr)
	}
	var text jen.Code
	switch f.Type {
	case "boolean":
		text = jen.Qual("strconv", "FormatBool").Call(jen.Bool().Parens(value))
	case "integer":
		text = jen.Qual("strconv", "FormatInt").Call(jen.Int64().Parens(value), jen.Lit(10))
	default:
		text = jen.String().Parens(value)
	}
	set := jen.Id("selectable").Index(jen.Lit(f.Label())).Op("=").Add(text)
	if len(nilChecks) == 0 {
		return set
	}
	cond := nilChecks[0]
	for _, c := range nilChecks[1:] {
		cond = jen.Add(cond).Op("&&").Add(c)
	}
	return jen.If(cond).Block(set).Else().Block(jen.Id("selectable").Index(jen.Lit(f.Label())).Op("=").Lit(""))
}

// columns is the print columns of every version that serves the resource
// (+apigen:printcolumn), as a map literal.
func (e resourceEmitter) columns() jen.Code {
	return jen.Map(jen.String()).Index().Qual(e.server, "Column").Values(jen.DictFunc(func(d jen.Dict) {
		for _, v := range e.g.ByPriority() {
			r := v.Kind(e.r.Kind)
			if r == nil {
				continue
			}
			if len(r.PrintColumns) == 0 {
				d[jen.Lit(v.Name)] = jen.Nil()
				continue
			}
			d[jen.Lit(v.Name)] = jen.ValuesFunc(func(l *jen.Group) {
				for _, c := range r.PrintColumns {
					col := jen.Dict{jen.Id("Name"): jen.Lit(c.Name), jen.Id("Type"): jen.Lit(c.Type), jen.Id("JSONPath"): jen.Lit(c.JSONPath)}
					if c.Format != "" {
						col[jen.Id("Format")] = jen.Lit(c.Format)
					}
					if c.Description != "" {
						col[jen.Id("Description")] = jen.Lit(c.Description)
					}
					if c.Priority != 0 {
						col[jen.Id("Priority")] = jen.Lit(int32(c.Priority))
					}
					l.Line().Values(col)
				}
				l.Line()
			})
		}
	}))
}

func (e resourceEmitter) emitStatusREST(f *jen.File) {
	r := e.r
	f.Line()
	f.Comment(fmt.Sprintf("StatusREST is the storage of the %s/status subresource.", r.Of.Plural))
	f.Type().Id("StatusREST").Struct(jen.Id("store").Op("*").Qual(genericregistryPkg, "Store"))
	f.Line()
	emitAssertions(f, "StatusREST", jen.Op("&").Id("StatusREST").Values(), "Storage", "Patcher", "TableConvertor", "ResetFieldsStrategy")
	recv := func() *jen.Statement { return f.Func().Params(jen.Id("r").Op("*").Id("StatusREST")) }
	f.Line()
	f.Comment("New returns an empty object to decode a request into.")
	recv().Id("New").Params().Qual(runtimePkg, "Object").Block(jen.Return(jen.Op("&").Add(e.kind()).Values()))
	f.Line()
	f.Comment("Destroy does nothing: the main resource's store owns the storage.")
	recv().Id("Destroy").Params().Block()
	f.Line()
	f.Comment("Get returns the object, so that clients can read what they are about to update.")
	recv().Id("Get").Params(e.ctxParam(), jen.Id("name").String(), jen.Id("options").Op("*").Qual(metav1Pkg, "GetOptions")).Params(jen.Qual(runtimePkg, "Object"), jen.Error()).Block(
		jen.Return(jen.Id("r").Dot("store").Dot("Get").Call(jen.Id("ctx"), jen.Id("name"), jen.Id("options"))),
	)
	f.Line()
	f.Comment("Update changes the status of an existing object; a subresource never creates one.")
	recv().Id("Update").Params(
		e.ctxParam(), jen.Id("name").String(), jen.Id("objInfo").Qual(restPkg, "UpdatedObjectInfo"),
		jen.Id("createValidation").Qual(restPkg, "ValidateObjectFunc"), jen.Id("updateValidation").Qual(restPkg, "ValidateObjectUpdateFunc"),
		jen.Id("forceAllowCreate").Bool(), jen.Id("options").Op("*").Qual(metav1Pkg, "UpdateOptions"),
	).Params(jen.Qual(runtimePkg, "Object"), jen.Bool(), jen.Error()).Block(
		jen.Return(jen.Id("r").Dot("store").Dot("Update").Call(jen.Id("ctx"), jen.Id("name"), jen.Id("objInfo"), jen.Id("createValidation"), jen.Id("updateValidation"), jen.False(), jen.Id("options"))),
	)
	f.Line()
	f.Comment("GetResetFields returns the fields that server-side apply leaves alone on this subresource.")
	recv().Id("GetResetFields").Params().Map(jen.Qual(fieldpathPkg, "APIVersion")).Op("*").Qual(fieldpathPkg, "Set").Block(
		jen.Return(jen.Id("r").Dot("store").Dot("GetResetFields").Call()),
	)
	f.Line()
	f.Comment("ConvertToTable prints the object as the main resource does.")
	recv().Id("ConvertToTable").Params(e.ctxParam(), jen.Id("object").Qual(runtimePkg, "Object"), jen.Id("tableOptions").Qual(runtimePkg, "Object")).Params(jen.Op("*").Qual(metav1Pkg, "Table"), jen.Error()).Block(
		jen.Return(jen.Id("r").Dot("store").Dot("ConvertToTable").Call(jen.Id("ctx"), jen.Id("object"), jen.Id("tableOptions"))),
	)
}

// emitSchemas declares the kind's schema in every version that serves it, as indented JSON:
// what the strategy validates each version's requests against.
func emitSchemas(f *jen.File, g *model.Group, hub *model.Resource) error {
	dict := jen.Dict{}
	for _, v := range g.ByPriority() {
		r := v.Kind(hub.Kind)
		if r == nil {
			continue
		}
		var indented bytes.Buffer
		if err := json.Indent(&indented, r.Schema, "", "  "); err != nil {
			return fmt.Errorf("the schema of %s %s: %w", v.Name, r.Kind, err)
		}
		dict[jen.Lit(v.Name)] = rawString(indented.String())
	}
	f.Comment(fmt.Sprintf("Schemas are the OpenAPI v3 schemas of %s in each version, as their CustomResourceDefinition", hub.Of.Plural))
	f.Comment("would carry them (from the validation markers of the version's types): what requests in that")
	f.Comment("version must satisfy, and the constraints the served OpenAPI documents show.")
	f.Var().Id("Schemas").Op("=").Map(jen.String()).String().Values(dict)
	published := jen.Dict{}
	for _, v := range g.ByPriority() {
		r := v.Kind(hub.Kind)
		if r == nil || len(r.OpenAPISchema) == 0 {
			continue
		}
		var indented bytes.Buffer
		if err := json.Indent(&indented, r.OpenAPISchema, "", "  "); err != nil {
			return fmt.Errorf("the published schema of %s %s: %w", v.Name, r.Kind, err)
		}
		published[jen.Lit(v.Name)] = rawString(indented.String())
	}
	if len(published) == 0 {
		return nil
	}
	f.Line()
	f.Comment("OpenAPISchemas are the schemas the served OpenAPI documents show, in the versions where they")
	f.Comment("differ from Schemas: they list +k8s:required fields as required, as kube-apiserver publishes a")
	f.Comment("built-in type's, where declarative validation alone enforces them (with its ratcheting).")
	f.Var().Id("OpenAPISchemas").Op("=").Map(jen.String()).String().Values(published)
	return nil
}

// rawString is s as a raw string literal, or a quoted one when s has a backquote.
func rawString(s string) jen.Code {
	if strings.Contains(s, "`") {
		return jen.Lit(s)
	}
	return jen.Op("`" + s + "`")
}

// emitScaleREST emits NewScaleREST: the server runtime's ScaleREST on the main store, with the
// hub's paths and, for server-side apply's managed fields, every serving version's spec
// replicas path.
func (e resourceEmitter) emitScaleREST(f *jen.File) {
	r, scale := e.r, e.r.Subresources.Scale
	f.Line()
	f.Comment(fmt.Sprintf("NewScaleREST returns the storage of the %s/scale subresource, an autoscaling/v1 Scale of", r.Of.Plural))
	f.Comment("the objects in the main resource's store.")
	f.Func().Id("NewScaleREST").Params(jen.Id("main").Op("*").Id("REST")).Op("*").Qual(e.server, "ScaleREST").Block(
		jen.Return(jen.Qual(e.server, "NewScaleREST").Call(
			jen.Id("main").Dot("Store"),
			groupVersion(e.g, e.hub),
			jen.Qual(e.server, "ScalePaths").Add(structLit(e.scalePaths(scale)...)),
			jen.Map(jen.String()).String().Values(jen.DictFunc(func(d jen.Dict) {
				for _, v := range e.g.Versions {
					if vr := v.Kind(r.Kind); vr != nil {
						path := ""
						if vr.Subresources.Scale != nil {
							path = vr.Subresources.Scale.SpecReplicasPath
						}
						d[jen.Lit(v.Name)] = jen.Lit(path)
					}
				}
			})),
		)),
	)
}

// scales are the kind's scale subresources by version, each as the model holds it. The
// runtime's validation decides which of them it checks as kube-apiserver checks a custom
// resource's (see crdScale in templates/server), so the emitter filters none out.
func (e resourceEmitter) scales() jen.Dict {
	d := jen.Dict{}
	for _, v := range e.g.Versions {
		if vr := v.Kind(e.r.Kind); vr != nil && vr.Subresources.Scale != nil {
			d[jen.Lit(v.Name)] = structLit(e.scalePaths(vr.Subresources.Scale)...)
		}
	}
	return d
}

// versionsWhere are the names of the versions of the kind, by priority, where holds is true.
func (e resourceEmitter) versionsWhere(holds func(*model.Resource) bool) []jen.Code {
	var out []jen.Code
	for _, v := range e.g.ByPriority() {
		if vr := v.Kind(e.r.Kind); vr != nil && holds(vr) {
			out = append(out, jen.Lit(v.Name))
		}
	}
	return out
}

// scalePaths are the fields of the server runtime's ScalePaths for a scale subresource.
func (e resourceEmitter) scalePaths(scale *model.Scale) []field {
	fields := []field{
		{"SpecReplicasPath", jen.Lit(scale.SpecReplicasPath)},
		{"StatusReplicasPath", jen.Lit(scale.StatusReplicasPath)},
		{"LabelSelectorPath", jen.Lit(scale.LabelSelectorPath)},
	}
	if scale.LabelSelectorStructured {
		fields = append(fields, field{"LabelSelectorStructured", jen.True()})
	}
	return fields
}
