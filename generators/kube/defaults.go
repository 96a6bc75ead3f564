package kube

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	gotypes "go/types"
	"maps"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
	dgargs "k8s.io/code-generator/cmd/defaulter-gen/args"
	dggen "k8s.io/code-generator/cmd/defaulter-gen/generators"
	"k8s.io/gengo/v2/generator"
	"k8s.io/gengo/v2/types"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/model"
)

const (
	// DefaultsFile is defaulter-gen's output in every version directory: RegisterDefaults and
	// a SetObjectDefaults_<Kind> per kind that has anything to default.
	DefaultsFile = "zz_generated.defaults.go"
	defaulterTag = "k8s:defaulter-gen"
	defaultTag   = "default"
)

// Defaulter returns the generator that runs defaulter-gen over every version package,
// writing <version dir>/zz_generated.defaults.go. Every type with TypeMeta gets an object
// defaulter that applies the fields' +default values (and kubebuilder's +kubebuilder:default,
// which becomes a +default tag for the run) and calls the package's SetDefaults_<Type>
// functions; the generated registration adds RegisterDefaults to the scheme, so defaults apply
// whenever an object of any version is decoded.
func Defaulter() engine.Upstream { return defaulter{} }

type defaulter struct{}

func (defaulter) Name() string { return "defaulter" }

func (defaulter) Generate(ctx *engine.LoadContext, out *engine.Output) error {
	pkgs, dirs, err := versionPackages(ctx)
	if err != nil || len(pkgs) == 0 {
		return err
	}
	var tags tagEdits
	defer tags.restore()
	for _, p := range pkgs {
		tags.addPackageTag(ctx.Load.Universe[p], defaulterTag, "TypeMeta")
	}
	if err := addFieldDefaults(ctx, &tags); err != nil {
		return err
	}
	if err := addReachedFieldDefaults(ctx, &tags, pkgs); err != nil {
		return err
	}
	structFields := structDefaultFields(ctx)
	args := dgargs.New()
	args.OutputFile = DefaultsFile
	// The types each package gets a SetObjectDefaults_ function for, by import path.
	objectDefaulters := map[string]map[string]bool{}
	err = run(ctx, out, upstream{
		name:              "defaulter-gen",
		nameSystems:       dggen.NameSystems(),
		defaultNameSystem: dggen.DefaultNameSystem(),
		inputs:            pkgs,
		dirs:              dirs,
		targets: func(c *generator.Context) []generator.Target {
			targets := dggen.GetTargets(c, args)
			for i, t := range targets {
				names := map[string]bool{}
				objectDefaulters[t.Path()] = names
				targets[i] = recordingTarget{t, names}
			}
			return targets
		},
	})
	if err != nil {
		return err
	}
	for _, v := range versions(ctx.Project) {
		for _, r := range v.Resources {
			r.ObjectDefaulter = objectDefaulters[v.Package][r.Kind]
		}
		if err := applyStructDefaults(ctx, out, v, structFields[v.Package]); err != nil {
			return err
		}
	}
	return installedDefaults(ctx.Project)
}

// installedDefaults decides which self-registering version packages the install package
// registers the defaults of: those that never call RegisterDefaults themselves (k8s.io/api's
// leave it to k8s.io/kubernetes) and have a kind with anything to default, whether from
// its own package's defaults or from another's its fields reach (gateway-api's v1alpha2
// routes reach v1's backend references). Where the install package is the user's, that
// registration is theirs to write, and an error says so rather than let the defaults
// silently never apply.
func installedDefaults(p *model.Project) error {
	var errs model.ErrorList
	for _, g := range p.Groups {
		for _, v := range g.Versions {
			v.InstallRegistersDefaults = v.DefaultsLeftToInstall && slices.ContainsFunc(v.Resources, func(r *model.Resource) bool { return r.ObjectDefaulter })
			if !v.InstallRegistersDefaults || !g.OwnInstall {
				continue
			}
			at := v.DeclPos["SchemeGroupVersion"]
			if !at.IsValid() {
				at = v.Pos
			}
			errs.Add(at, "package %s registers its types itself and has defaults, but neither it nor your install package calls RegisterDefaults, so they would never apply; register them, as in localSchemeBuilder.Register(addKnownTypes, RegisterDefaults)",
				path.Base(v.Package))
		}
	}
	return errs.Err()
}

// recordingTarget is a defaulter-gen target whose generators record the types they write
// an object defaulter for.
type recordingTarget struct {
	generator.Target
	names map[string]bool
}

func (t recordingTarget) Generators(c *generator.Context) []generator.Generator {
	gens := t.Target.Generators(c)
	for i, g := range gens {
		gens[i] = recordingGenerator{g, t.names}
	}
	return gens
}

// recordingGenerator records the types its generator accepts. defaulter-gen's generator
// accepts exactly the types it writes SetObjectDefaults_<Type> for (and registers in
// RegisterDefaults); gengo asks once per type, as the generator expects.
type recordingGenerator struct {
	generator.Generator
	names map[string]bool
}

func (g recordingGenerator) Filter(c *generator.Context, t *types.Type) bool {
	ok := g.Generator.Filter(c, t)
	if ok {
		g.names[t.Name.Name] = true
	}
	return ok
}

// addFieldDefaults gives the upstream generators (defaulter-gen, and openapi-gen, which puts
// defaults in the schema) every field default of the model as a +default tag: kubebuilder's
// markers become the Kubernetes tag they mean.
func addFieldDefaults(ctx *engine.LoadContext, tags *tagEdits) error {
	for _, v := range versions(ctx.Project) {
		for _, d := range v.Defaults {
			t := ctx.Load.Universe[v.Package].Types[d.Type]
			if t == nil {
				return fmt.Errorf("%stype %s of %s not found in package %s", at(d.Pos), d.Type, d.Marker, v.Package)
			}
			tags.addMemberTag(t, d.Field, defaultTag, d.JSON)
		}
	}
	return nil
}

// addReachedFieldDefaults gives defaulter-gen, as a +default tag, the +kubebuilder:default of
// each field of the struct types outside the version packages that their types reach (a
// shared package of the project, another module's package of common types: crossplane's
// core/v2 Policy.resolution): controller-gen puts those defaults in the CRD of every kind that
// reaches them, and defaulter-gen applies a +default wherever its walk of a kind meets it. A
// +default written there is defaulter-gen's already. The served OpenAPI of such a type stays
// openapi-gen's, as for its other markers. A default on a struct held by value, which
// defaulter-gen cannot apply outside the version packages, is an error at the field.
func addReachedFieldDefaults(ctx *engine.LoadContext, tags *tagEdits, versionPkgs []string) error {
	own := map[string]bool{}
	for _, p := range versionPkgs {
		own[p] = true
	}
	seen := map[*types.Type]bool{}
	var queue []*types.Type
	enqueue := func(t *types.Type) {
		if t != nil && !seen[t] {
			seen[t] = true
			queue = append(queue, t)
		}
	}
	for _, p := range versionPkgs {
		if pkg := ctx.Load.Universe[p]; pkg != nil {
			for _, name := range slices.Sorted(maps.Keys(pkg.Types)) {
				enqueue(pkg.Types[name])
			}
		}
	}
	var errs model.ErrorList
	for len(queue) > 0 {
		t := queue[0]
		queue = queue[1:]
		switch t.Kind {
		case types.Pointer, types.Slice, types.Array:
			enqueue(t.Elem)
		case types.Map:
			enqueue(t.Key)
			enqueue(t.Elem)
		case types.Alias:
			enqueue(t.Underlying)
		case types.Struct:
			for _, m := range t.Members {
				enqueue(m.Type)
				if own[t.Name.Package] || hasTag(m.CommentLines, defaultTag) {
					continue
				}
				rest, ok := kubebuilderDefaultText(m.CommentLines)
				if !ok {
					continue
				}
				value, err := markers.KubebuilderDefaultJSON(rest)
				pos := reachedMemberPosition(ctx, t, m.Name)
				switch {
				case err != nil:
					errs.Add(pos, "+%s on %s.%s: %v", markers.KubebuilderDefaultMarker, t.Name.Name, m.Name, err)
				case structValue(m.Type):
					errs.Add(pos, "+%s%s on %s.%s (package %s): a default on a struct held by value is applied only in the API packages; hold it by pointer, or default it in a SetDefaults_ function of the kind's package",
						markers.KubebuilderDefaultMarker, rest, t.Name.Name, m.Name, t.Name.Package)
				default:
					tags.addMemberTag(t, m.Name, defaultTag, value)
				}
			}
		}
	}
	return errs.Err()
}

// reachedMemberPosition is where struct t's member name is declared: relative to the
// project inside it (loader.Result.MemberPos), absolute in another module, the package's directory when
// the load has no position for it.
func reachedMemberPosition(ctx *engine.LoadContext, t *types.Type, name string) token.Position {
	if pos, ok := ctx.Load.MemberPos(t, name); ok {
		return pos
	}
	if t.GoType != nil {
		if st, ok := t.GoType.Underlying().(*gotypes.Struct); ok {
			for f := range st.Fields() {
				if f.Name() == name && f.Pos().IsValid() {
					return ctx.Load.Fset.Position(f.Pos())
				}
			}
		}
	}
	if pkg := ctx.Load.Universe[t.Name.Package]; pkg != nil {
		return token.Position{Filename: pkg.Dir}
	}
	return token.Position{}
}

// kubebuilderDefaultText is the text after +kubebuilder:default's name in a field's comment
// lines ("=Required"), if it has one.
func kubebuilderDefaultText(lines []string) (string, bool) {
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if rest, ok := strings.CutPrefix(l, "+"+markers.KubebuilderDefaultMarker); ok && (strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, ":=")) {
			return rest, true
		}
	}
	return "", false
}

// withholdUnpublishableDefaults keeps from openapi-gen the defaults it refuses: on a field that
// is neither a pointer nor omitempty, openapi-gen allows only the zero value as the default
// (a client always sends such a field, so a published default would mislead it), and on a
// struct only {}. controller-gen and CRDs accept them, and the server still applies them
// (defaulter-gen fills the field when it decodes the zero value); only the served OpenAPI
// goes without, which the warning says, at the marker.
func withholdUnpublishableDefaults(ctx *engine.LoadContext, tags *tagEdits) {
	forEachDefaulted(ctx, func(d *model.FieldDefault, t *types.Type, m types.Member) {
		zero, enforced := enforcedDefault(m.Type, hasOmitempty(m.Tags))
		if !enforced || sameJSON(d.JSON, zero) {
			return
		}
		tags.removeMemberTag(t, d.Field, defaultTag)
		if structValue(m.Type) {
			ctx.Warn(d.Pos, "%s=%s on %s.%s is not in the served OpenAPI: openapi-gen publishes a default other than {} on a field of struct type %s only through a pointer; the server still applies it when the field is empty",
				d.Marker, d.JSON, d.Type, d.Field, m.Type.Name.Name)
			return
		}
		d.AtZero = true
		ctx.Warn(d.Pos, "%s=%s on %s.%s is not in the served OpenAPI: openapi-gen publishes a default other than %s only on a pointer or omitempty field; the server still applies it when the field is %s",
			d.Marker, d.JSON, d.Type, d.Field, zero, zero)
	})
}

// structDefaultFields are, by package, the names of the fields with a default whose type is a
// struct held by value (flux's +kubebuilder:default={"observedGeneration":-1} on a Status,
// leaderworkerset's =1 on an intstr.IntOrString). defaulter-gen writes the default of such a
// field as for a pointer, tested against nil, which does not compile; applyStructDefaults
// tests it for its zero value instead.
func structDefaultFields(ctx *engine.LoadContext) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, v := range versions(ctx.Project) {
		for _, d := range v.Defaults {
			t := ctx.Load.Universe[v.Package].Types[d.Type]
			if t == nil {
				continue
			}
			for _, m := range t.Members {
				if m.Name == d.Field && structValue(m.Type) {
					if out[v.Package] == nil {
						out[v.Package] = map[string]bool{}
					}
					out[v.Package][m.Name] = true
				}
			}
		}
	}
	return out
}

// applyStructDefaults rewrites, in a version's defaulter-gen output, each default of a field
// the fields name whose type is a struct held by value: defaulter-gen writes
//
//	if in.Status == nil {
//		if err := json.Unmarshal([]byte(`{"observedGeneration":-1}`), &in.Status); err != nil {
//
// and the test becomes reflect.ValueOf(in.Status).IsZero(). A CustomResourceDefinition applies
// such a default to a field absent from the object, before the defaults inside it; here, as
// defaulter-gen does for every field that is not a pointer, a field left at its zero value is
// absent, and the defaults inside it are applied after it, as defaulter-gen orders them.
func applyStructDefaults(ctx *engine.LoadContext, out *engine.Output, v *model.Version, fields map[string]bool) error {
	name := path.Join(v.Dir, DefaultsFile)
	src, ok := out.Get(name)
	if !ok || len(fields) == 0 {
		return nil
	}
	rewritten, err := testZeroValues(name, src, fields, ctx.Load.Universe[v.Package])
	if err != nil || rewritten == nil {
		return err
	}
	return out.Replace(name, rewritten)
}

// testZeroValues is applyStructDefaults on the source of one defaults file of package pkg:
// the source rewritten, or nil when no default of the fields is in it.
func testZeroValues(name string, src []byte, fields map[string]bool, pkg *types.Package) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	reflectName := freeImportName(pkg, f, "reflect")
	rewrote := false
	ast.Inspect(f, func(n ast.Node) bool {
		stmt, ok := n.(*ast.IfStmt)
		if !ok {
			return true
		}
		field, ok := nilTestOfUnmarshalled(stmt)
		if !ok {
			return true
		}
		if sel, isSel := field.(*ast.SelectorExpr); !isSel || !fields[sel.Sel.Name] {
			return true
		}
		stmt.Cond = &ast.CallExpr{Fun: &ast.SelectorExpr{
			X:   &ast.CallExpr{Fun: &ast.SelectorExpr{X: ast.NewIdent(reflectName), Sel: ast.NewIdent("ValueOf")}, Args: []ast.Expr{field}},
			Sel: ast.NewIdent("IsZero"),
		}}
		rewrote = true
		return true
	})
	if !rewrote {
		return nil, nil
	}
	if reflectName == "reflect" {
		astutil.AddImport(fset, f, "reflect")
	} else {
		astutil.AddNamedImport(fset, f, reflectName, "reflect")
	}
	var buf bytes.Buffer
	if err := format.Node(&buf, fset, f); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return buf.Bytes(), nil
}

// nilTestOfUnmarshalled matches defaulter-gen's default of a field that is not a pointer,
// "if X == nil { if err := json.Unmarshal(..., &X); ... }", and returns X.
func nilTestOfUnmarshalled(stmt *ast.IfStmt) (ast.Expr, bool) {
	cond, ok := stmt.Cond.(*ast.BinaryExpr)
	if !ok || cond.Op != token.EQL || len(stmt.Body.List) == 0 {
		return nil, false
	}
	if id, ok := cond.Y.(*ast.Ident); !ok || id.Name != "nil" {
		return nil, false
	}
	inner, ok := stmt.Body.List[0].(*ast.IfStmt)
	if !ok {
		return nil, false
	}
	assign, ok := inner.Init.(*ast.AssignStmt)
	if !ok || len(assign.Rhs) != 1 {
		return nil, false
	}
	call, ok := assign.Rhs[0].(*ast.CallExpr)
	if !ok || len(call.Args) != 2 {
		return nil, false
	}
	if fn, ok := call.Fun.(*ast.SelectorExpr); !ok || fn.Sel.Name != "Unmarshal" {
		return nil, false
	}
	addr, ok := call.Args[1].(*ast.UnaryExpr)
	if !ok || addr.Op != token.AND || gotypes.ExprString(addr.X) != gotypes.ExprString(cond.X) {
		return nil, false
	}
	return cond.X, true
}

// freeImportName is the name to import path reflect as in a generated file of package pkg:
// want, unless the package or the file declares that name already.
func freeImportName(pkg *types.Package, f *ast.File, want string) string {
	for i := 0; ; i++ {
		name := want
		if i > 0 {
			name = fmt.Sprintf("%s%d", want, i)
		}
		taken := false
		if pkg != nil {
			_, t := pkg.Types[name]
			_, fn := pkg.Functions[name]
			_, va := pkg.Variables[name]
			_, co := pkg.Constants[name]
			taken = t || fn || va || co
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "reflect" {
				if imp.Name == nil {
					return "reflect"
				}
				return imp.Name.Name
			}
			if imp.Name != nil && imp.Name.Name == name {
				taken = true
			}
		}
		if !taken {
			return name
		}
	}
}

// forEachDefaulted calls f for every field default of the project, with the type and the
// member it is set on.
func forEachDefaulted(ctx *engine.LoadContext, f func(d *model.FieldDefault, t *types.Type, m types.Member)) {
	for _, v := range versions(ctx.Project) {
		for _, d := range v.Defaults {
			t := ctx.Load.Universe[v.Package].Types[d.Type]
			if t == nil {
				continue
			}
			for _, m := range t.Members {
				if m.Name == d.Field {
					f(d, t, m)
				}
			}
		}
	}
}

// structValue reports whether t, a field's type, is a struct held by value.
func structValue(t *types.Type) bool {
	for t.Kind == types.Alias {
		t = t.Underlying
	}
	return t.Kind == types.Struct
}

// enforcedDefault is the only default openapi-gen accepts on a field of type t, as JSON, and
// whether it insists on one (kube-openapi's mustEnforceDefault).
func enforcedDefault(t *types.Type, omitempty bool) (string, bool) {
	if _, custom := t.Methods["UnmarshalJSON"]; custom {
		return "", false
	}
	switch t.Kind {
	case types.Alias:
		return enforcedDefault(t.Underlying, omitempty)
	case types.Struct:
		if len(t.Members) == 1 && t.Members[0].Embedded {
			return enforcedDefault(t.Members[0].Type, omitempty)
		}
		return "{}", true
	case types.Builtin:
		if omitempty {
			return "", false
		}
		switch t.Name.Name {
		case "string":
			return `""`, true
		case "bool":
			return "false", true
		default:
			return "0", true
		}
	}
	return "", false
}

// hasOmitempty reports whether a struct tag's json key has the omitempty option.
func hasOmitempty(tag string) bool {
	json := reflect.StructTag(tag).Get("json")
	_, opts, _ := strings.Cut(json, ",")
	return slices.Contains(strings.Split(opts, ","), "omitempty")
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}
