package kube

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	cgargs "k8s.io/code-generator/cmd/conversion-gen/args"
	cggen "k8s.io/code-generator/cmd/conversion-gen/generators"
	"k8s.io/gengo/v2/generator"
	"k8s.io/gengo/v2/types"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/model"
	"github.com/apigen-dev/apigen/templates"
)

const (
	conversionFile = "zz_generated.conversion.go"
	conversionTag  = "k8s:conversion-gen"
)

// Conversion returns the generator that runs conversion-gen, writing
// <version dir>/zz_generated.conversion.go: the conversions between every version of a kind
// and its hub, the kind's storage version. Conversions between two versions live in the one
// of lower priority (v1alpha1 converts to and from v1, never the reverse), so version packages
// import each other in one direction only, whichever version stores which kind. A package
// with a +k8s:conversion-gen tag of its own keeps it.
//
// Where conversion-gen cannot convert a type by itself (a field renamed, removed or of another
// type), it leaves the public Convert_ function to the user. Generation then fails with a
// positioned error per missing function, naming its signature; a *MissingConversions error
// carries the stubs that apigen generate --scaffold-conversions writes.
func Conversion() engine.Upstream { return conversionGen{} }

type conversionGen struct{}

func (conversionGen) Name() string { return "conversion" }

func (conversionGen) Generate(ctx *engine.LoadContext, out *engine.Output) error {
	if err := warnKeptConversions(ctx); err != nil {
		return err
	}
	peers := ctx.Project.ConversionPeers()
	if len(peers) == 0 {
		return nil
	}
	_, dirs, err := versionPackages(ctx)
	if err != nil {
		return err
	}
	var tags tagEdits
	defer tags.restore()
	inputs := slices.DeleteFunc(slices.Sorted(maps.Keys(peers)), func(pkg string) bool {
		return keptConversions(ctx, dirs[pkg])
	})
	if len(inputs) == 0 {
		return nil
	}
	dropUnloadedPeers(ctx, inputs, peers, &tags)
	for _, pkg := range inputs {
		tags.addPackageTagValues(ctx.Load.Universe[pkg], conversionTag, peers[pkg]...)
	}
	for _, t := range convertedByMethods(ctx.Project, ctx.Load.Universe, peers) {
		tags.addTypeTag(t, conversionTag, "false")
	}

	files, missing, err := runConversionGen(ctx, inputs, dirs)
	if err != nil {
		return err
	}
	if len(missing.Errors) > 0 && ctx.ScaffoldConversions {
		// Plan the stubs, and run conversion-gen again over a universe that has them, as it
		// would over the tree once they are written: it then registers them as the user's
		// conversions. One load, and the output generate writes is the output verify expects.
		if err := planConversionStubs(ctx, out, missing, &tags); err != nil {
			return err
		}
		if files, missing, err = runConversionGen(ctx, inputs, dirs); err != nil {
			return err
		}
	}
	if len(missing.Errors) > 0 {
		return missing
	}
	for _, name := range files.Paths() {
		src, _ := files.Get(name)
		if err := out.Add(name, src); err != nil {
			return err
		}
	}
	return convertLikeStrategyNone(ctx, out, missing.None)
}

// dropUnloadedPeers leaves out of the run, with a warning, a +k8s:conversion-gen tag of the
// user's that names a package the load does not have (k8s.io/kubernetes' own versions name
// their internal package this way). conversion-gen would load it by itself, a second load, and
// fail with no position when it cannot be found; apigen converts every version through its
// kind's hub without the tag.
func dropUnloadedPeers(ctx *engine.LoadContext, inputs []string, peers map[string][]string, tags *tagEdits) {
	for _, v := range versions(ctx.Project) {
		if !slices.Contains(inputs, v.Package) {
			continue
		}
		pkg := ctx.Load.Universe[v.Package]
		for _, target := range tagValues(pkg.Comments, conversionTag) {
			loaded, ok := ctx.Load.Universe[target]
			if target == "false" || slices.Contains(peers[v.Package], target) || ok && loaded.Name != "" {
				continue
			}
			ctx.Warn(v.Pos, "+k8s:conversion-gen=%s names a package that is neither in this module nor among its dependencies; "+
				"the tag is ignored: apigen converts %s to and from %s itself", target, v.Package, strings.Join(peers[v.Package], ", "))
			tags.removePackageTag(pkg, conversionTag, target)
		}
	}
}

// keptConversions reports whether a version directory holds conversion-gen's own
// zz_generated.conversion.go, as the spoke versions of kueue and cluster-api ship it beside
// their hand-written conversions and ConvertTo/ConvertFrom (which call its functions). apigen
// keeps it, as it keeps controller-gen's deepcopy: it registers every conversion of the
// package with the package's localSchemeBuilder, so apigen generates none there.
func keptConversions(ctx *engine.LoadContext, dir string) bool {
	_, kept := readKeptConversions(ctx, dir)
	return kept
}

// readKeptConversions reads the zz_generated.conversion.go of conversion-gen's own that a
// version directory keeps (keptConversions).
func readKeptConversions(ctx *engine.LoadContext, dir string) ([]byte, bool) {
	name := path.Join(dir, conversionFile)
	src, err := ctx.Load.Reads.ReadFile(filepath.Join(ctx.Load.Root, filepath.FromSlash(name)))
	return src, err == nil && engine.OtherTool(name, src) == "conversion-gen"
}

// warnKeptConversions warns at the hand-written conversions that lose a field (warnLostFields)
// in the version directories that keep conversion-gen's own file, where conversion-gen does
// not run: that file's autoConvert_ functions are the ones the hand-written ones call.
func warnKeptConversions(ctx *engine.LoadContext) error {
	for _, v := range versions(ctx.Project) {
		if len(v.HandConversions) == 0 {
			continue
		}
		src, kept := readKeptConversions(ctx, v.Dir)
		if !kept {
			continue
		}
		name := path.Join(v.Dir, conversionFile)
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ParseComments)
		if err != nil {
			return fmt.Errorf("reading %s: %w", name, err)
		}
		warnLostFields(ctx, f, v)
	}
	return nil
}

// runConversionGen runs conversion-gen over inputs and reads its output: the conversion
// functions it left to the user that the user has not written, and (as warnings) the
// hand-written ones that lose a field.
func runConversionGen(ctx *engine.LoadContext, inputs []string, dirs map[string]string) (*engine.Output, *MissingConversions, error) {
	args := cgargs.New()
	args.OutputFile = conversionFile
	files := engine.NewOutput()
	err := run(ctx, files, upstream{
		name:              "conversion-gen",
		nameSystems:       cggen.NameSystems(),
		defaultNameSystem: cggen.DefaultNameSystem(),
		inputs:            inputs,
		dirs:              dirs,
		targets: func(c *generator.Context) []generator.Target {
			return cggen.GetTargets(c, args)
		},
	})
	if err != nil {
		return nil, nil, err
	}
	missing := &MissingConversions{}
	for _, name := range files.Paths() {
		src, _ := files.Get(name)
		v := versionInDir(ctx.Project, path.Dir(name))
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ParseComments)
		if err != nil {
			return nil, nil, fmt.Errorf("reading %s: %w", name, err)
		}
		missing.find(f, v, ctx.Load.Universe[v.Package].Functions, !ctx.ScaffoldConversions && withoutConversionCode(ctx.Project, v))
		if len(missing.Errors) == 0 {
			warnLostFields(ctx, f, v)
		}
	}
	return files, missing, nil
}

// planConversionStubs adds, per version directory, the user-owned file with a stub of each
// conversion function conversion-gen left to the user (it calls the generated autoConvert
// function, then fails until finished), and declares the stubs in the shared universe for the
// rest of the run, as the parser would have read them. A directory whose stub file exists
// already is the user's: the run fails, naming the functions to add there.
func planConversionStubs(ctx *engine.LoadContext, out *engine.Output, missing *MissingConversions, tags *tagEdits) error {
	for _, dir := range slices.Sorted(maps.Keys(missing.Stubs)) {
		v := versionInDir(ctx.Project, dir)
		file := path.Join(dir, ConversionStubFile)
		if hasFile(ctx, v, ConversionStubFile) {
			errs := slices.Clone(missing.Errors)
			errs.Add(token.Position{Filename: file, Line: 1, Column: 1}, "%s is yours already, so apigen writes no conversion stubs into it; write the functions named here in it or in another file of package %s",
				file, path.Base(v.Package))
			return errs.Err()
		}
		stubs := missing.Stubs[dir]
		data := struct {
			Package string
			Imports []struct{ Name, Path string }
			Stubs   []ConversionStub
		}{Package: path.Base(dir), Stubs: stubs}
		imports := map[string]string{}
		for _, s := range stubs {
			maps.Copy(imports, s.Imports)
		}
		for _, name := range slices.Sorted(maps.Keys(imports)) {
			data.Imports = append(data.Imports, struct{ Name, Path string }{name, imports[name]})
		}
		content, err := templates.RenderScaffold("scaffold/api/conversion.go.tmpl", file, data)
		if err != nil {
			return err
		}
		note := fmt.Sprintf(" with %d conversion stubs: finish them, they fail until you do", len(stubs))
		if err := out.AddScaffold(file, content, note); err != nil {
			return err
		}
		for _, s := range stubs {
			tags.declareConversion(ctx.Load.Universe, v.Package, s.Name, s.inType, s.outType)
		}
	}
	return nil
}

// hasFile reports whether version v's package has a Go file named name, as the load saw it.
func hasFile(ctx *engine.LoadContext, v *model.Version, name string) bool {
	pkg := ctx.Load.Package(v.Package)
	if pkg == nil {
		return false
	}
	for _, f := range pkg.GoFiles {
		if filepath.Base(f) == name {
			return true
		}
	}
	return false
}

// convertedByMethods returns the types of conversion-gen's input packages that only kinds
// converting with their own ConvertTo and ConvertFrom reach: the kind, its list and the types
// of its fields declared in the package, unless another kind of the package reaches them too.
// conversion-gen would otherwise convert them to their namesakes in the hub's package, and
// stop at the first field that differs, for conversions nothing calls. Tagged
// +k8s:conversion-gen=false, it leaves them out.
func convertedByMethods(p *model.Project, universe types.Universe, peers map[string][]string) []*types.Type {
	var out []*types.Type
	for _, g := range p.Groups {
		for _, v := range g.Versions {
			if _, input := peers[v.Package]; !input {
				continue
			}
			pkg := universe[v.Package]
			byMethods, others := map[*types.Type]bool{}, map[*types.Type]bool{}
			for _, r := range v.Resources {
				reached := others
				if r.ConvertsByMethods() {
					reached = byMethods
				}
				reach(pkg.Types[r.Kind], v.Package, reached)
				reach(pkg.Types[r.ListKind], v.Package, reached)
			}
			for t := range byMethods {
				if !others[t] {
					out = append(out, t)
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b *types.Type) int { return strings.Compare(a.Name.String(), b.Name.String()) })
	return out
}

// reach adds t, when package pkg declares it, and every type of pkg that its fields,
// elements, keys and underlying types lead to. Types of other packages lead nowhere in pkg:
// pkg imports them.
func reach(t *types.Type, pkg string, seen map[*types.Type]bool) {
	if t == nil || seen[t] || (t.Name.Package != "" && t.Name.Package != pkg) {
		return
	}
	if t.Name.Package == pkg {
		seen[t] = true
	}
	for _, m := range t.Members {
		reach(m.Type, pkg, seen)
	}
	reach(t.Elem, pkg, seen)
	reach(t.Key, pkg, seen)
	reach(t.Underlying, pkg, seen)
}

func versionInDir(p *model.Project, dir string) *model.Version {
	for _, g := range p.Groups {
		for _, v := range g.Versions {
			if v.Dir == dir {
				return v
			}
		}
	}
	return nil
}

// MissingConversions is the error of a run in which conversion-gen left conversion functions
// to the user that the user has not written. Errors has one positioned error per function;
// Stubs holds, per version directory, the functions to scaffold.
type MissingConversions struct {
	Errors model.ErrorList
	Stubs  map[string][]ConversionStub
	// None holds, per version directory, the functions of a version without conversion code
	// of its own (withoutConversionCode): apigen writes them, converting as a
	// CustomResourceDefinition's conversion strategy None does, and they are no error.
	None map[string][]ConversionStub
}

// ConversionStub is one conversion function the user must write in a version package.
type ConversionStub struct {
	// Name is the function's name; In and Out its parameter types as the package writes them
	// (FlunderSpec, v1beta1.FlunderSpec).
	Name, In, Out string
	// Imports maps the package names In and Out use to their import paths.
	Imports map[string]string
	// Reasons are conversion-gen's words for what it could not convert.
	Reasons []string
	// inType and outType are the types it converts.
	inType, outType types.Name
}

// Signature is the function's declaration, as the user writes it in the version package.
func (s ConversionStub) Signature() string {
	return fmt.Sprintf("func %s(in *%s, out *%s, s conversion.Scope) error", s.Name, s.In, s.Out)
}

func (m *MissingConversions) Error() string { return m.Errors.Err().Error() }

// Unwrap gives the positioned errors, sorted.
func (m *MissingConversions) Unwrap() error { return m.Errors.Err() }

// warning is conversion-gen's note inside an autoConvert function about a field it could not
// convert: the whole note, the input's field and conversion-gen's reason.
var warning = regexp.MustCompile(`^// WARNING: (in\.(\S+) requires manual conversion: (.*))$`)

// manualField is a field of an autoConvert function's input that conversion-gen left to the
// conversion function calling it, with its note (warning).
type manualField struct{ note, field, reason string }

// manualFields are the fields conversion-gen noted inside autoConvert function auto of the
// generated file f as requiring manual conversion, in the order it noted them.
func manualFields(f *ast.File, auto *ast.FuncDecl) []manualField {
	var fields []manualField
	for _, cg := range f.Comments {
		if cg.Pos() < auto.Pos() || cg.End() > auto.End() {
			continue
		}
		for _, c := range cg.List {
			if w := warning.FindStringSubmatch(c.Text); w != nil {
				fields = append(fields, manualField{note: w[1], field: w[2], reason: w[3]})
			}
		}
	}
	return fields
}

// find records the conversion functions that the generated file src of version v registers
// but the package's own functions (userFuncs) lack, and the user's Convert_ functions whose
// signature conversion-gen did not recognise. With none, the functions missing are recorded
// in None rather than as errors.
func (m *MissingConversions) find(f *ast.File, v *model.Version, userFuncs map[string]*types.Type, none bool) {
	imports := fileImports(f)
	generated := funcDecls(f)
	// stubFor describes the function name converting *in to *out, both as the generated file
	// writes them.
	stubFor := func(name string, in, out ast.Expr) ConversionStub {
		stub := ConversionStub{Name: name, In: exprString(in), Out: exprString(out), Imports: map[string]string{},
			inType: typeName(in, v.Package, imports), outType: typeName(out, v.Package, imports)}
		for _, e := range []ast.Expr{in, out} {
			if sel, ok := e.(*ast.SelectorExpr); ok {
				if pkg, ok := sel.X.(*ast.Ident); ok {
					stub.Imports[pkg.Name] = imports[pkg.Name]
				}
			}
		}
		if auto := generated["auto"+name]; auto != nil {
			for _, m := range manualFields(f, auto) {
				stub.Reasons = append(stub.Reasons, m.note)
			}
		}
		return stub
	}
	// A user function that conversion-gen also wrote: it did not take the user's as the
	// conversion, because the parameter types do not match the name.
	for _, fn := range slices.Sorted(maps.Keys(generated)) {
		decl := generated[fn]
		if _, mine := userFuncs[fn]; !mine || !strings.HasPrefix(fn, "Convert_") || len(decl.Type.Params.List) != 3 {
			continue
		}
		params := decl.Type.Params.List
		stub := stubFor(fn, params[0].Type.(*ast.StarExpr).X, params[1].Type.(*ast.StarExpr).X)
		m.Errors.Add(v.DeclPos[fn], "%s does not have the signature conversion-gen expects, so it is not used as the conversion; declare it as %s",
			fn, stub.Signature())
	}
	seen := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		id, ok := call.Fun.(*ast.Ident)
		if !ok || !strings.HasPrefix(id.Name, "Convert_") || generated[id.Name] != nil || seen[id.Name] || len(call.Args) != 3 {
			return true
		}
		// RegisterConversions calls it as Convert_X(a.(*In), b.(*Out), scope).
		var types [2]ast.Expr
		for i := range types {
			assert, ok := call.Args[i].(*ast.TypeAssertExpr)
			if !ok {
				return true
			}
			star, ok := assert.Type.(*ast.StarExpr)
			if !ok {
				return true
			}
			types[i] = star.X
		}
		seen[id.Name] = true
		stub := stubFor(id.Name, types[0], types[1])
		if fn, written := userFuncs[id.Name]; written {
			if !conversionSignature(fn, typeName(types[0], v.Package, imports), typeName(types[1], v.Package, imports)) {
				m.Errors.Add(v.DeclPos[id.Name], "%s does not have the signature conversion-gen expects; declare it as %s", id.Name, stub.Signature())
			}
			return true
		}
		local := stub.In
		if strings.Contains(local, ".") {
			local = stub.Out
		}
		if len(stub.Reasons) == 0 {
			stub.Reasons = []string{"conversion-gen could not convert it"}
		}
		if none {
			if m.None == nil {
				m.None = map[string][]ConversionStub{}
			}
			m.None[v.Dir] = append(m.None[v.Dir], stub)
			return true
		}
		m.Errors.Add(v.DeclPos[local], "conversion-gen cannot convert %s to %s by itself (%s); write %s in a file of package %s (apigen generate --scaffold-conversions writes %s with a stub)",
			stub.In, stub.Out, strings.Join(stub.Reasons, "; "), stub.Signature(), path.Base(v.Package), path.Join(v.Dir, ConversionStubFile))
		if m.Stubs == nil {
			m.Stubs = map[string][]ConversionStub{}
		}
		m.Stubs[v.Dir] = append(m.Stubs[v.Dir], stub)
		return true
	})
	// A field's conversion that a generated autoConvert function calls and no one writes: two
	// fields of one name and of different types (v1's CrossVersionObjectReference target, v2's
	// MetricTarget) in a struct whose conversion the user wrote, so conversion-gen registers
	// none for the pair, but its autoConvert, which must compile, calls it by name.
	for _, decl := range slices.Sorted(maps.Keys(generated)) {
		fn := generated[decl]
		if !strings.HasPrefix(decl, "autoConvert_") || fn.Body == nil {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 3 {
				return true
			}
			id, ok := call.Fun.(*ast.Ident)
			if !ok || !strings.HasPrefix(id.Name, "Convert_") || generated[id.Name] != nil || seen[id.Name] {
				return true
			}
			if _, written := userFuncs[id.Name]; written {
				return true
			}
			in, out, ok := conversionTypes(id.Name, path.Base(v.Package), imports)
			if !ok {
				return true
			}
			seen[id.Name] = true
			stub := stubFor(id.Name, in, out)
			field := call.Args[0]
			if u, ok := field.(*ast.UnaryExpr); ok {
				field = u.X
			}
			stub.Reasons = []string{fmt.Sprintf("%s calls it for %s, a field of one name and of another type in each version", decl, exprString(field))}
			if none {
				if m.None == nil {
					m.None = map[string][]ConversionStub{}
				}
				m.None[v.Dir] = append(m.None[v.Dir], stub)
				return true
			}
			local := stub.In
			if strings.Contains(local, ".") {
				local = stub.Out
			}
			m.Errors.Add(v.DeclPos[local], "conversion-gen cannot convert %s to %s by itself (%s); write %s in a file of package %s (apigen generate --scaffold-conversions writes %s with a stub)",
				stub.In, stub.Out, strings.Join(stub.Reasons, "; "), stub.Signature(), path.Base(v.Package), path.Join(v.Dir, ConversionStubFile))
			if m.Stubs == nil {
				m.Stubs = map[string][]ConversionStub{}
			}
			m.Stubs[v.Dir] = append(m.Stubs[v.Dir], stub)
			return true
		})
	}
}

// conversionTypes are the parameter types of conversion-gen's function name,
// Convert_<package>_<In>_To_<package>_<Out>, as the generated file of package local writes
// them (In, or v2.Out for an imported package); ok is false for a name it cannot read.
func conversionTypes(name, local string, imports map[string]string) (in, out ast.Expr, ok bool) {
	from, to, found := strings.Cut(strings.TrimPrefix(name, "Convert_"), "_To_")
	if !found {
		return nil, nil, false
	}
	var exprs [2]ast.Expr
	for i, part := range []string{from, to} {
		pkg, typ, found := strings.Cut(part, "_")
		switch {
		case !found || typ == "" || strings.Contains(typ, "_"):
			return nil, nil, false
		case pkg == local:
			exprs[i] = ast.NewIdent(typ)
		case imports[pkg] != "":
			exprs[i] = &ast.SelectorExpr{X: ast.NewIdent(pkg), Sel: ast.NewIdent(typ)}
		default:
			return nil, nil, false
		}
	}
	return exprs[0], exprs[1], true
}

// fileImports maps the package names a file uses to their import paths.
func fileImports(f *ast.File) map[string]string {
	imports := map[string]string{}
	for _, imp := range f.Imports {
		p := strings.Trim(imp.Path.Value, `"`)
		n := path.Base(p)
		if imp.Name != nil {
			n = imp.Name.Name
		}
		imports[n] = p
	}
	return imports
}

// funcDecls maps the names of a file's functions to their declarations.
func funcDecls(f *ast.File) map[string]*ast.FuncDecl {
	decls := map[string]*ast.FuncDecl{}
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil {
			decls[fn.Name.Name] = fn
		}
	}
	return decls
}

// warnLostFields warns at every hand-written conversion function of version v that loses a
// field on every conversion, as its autoConvert_ function in the conversion file f (apigen's,
// or conversion-gen's own that the project ships) tells: one that neither calls that function
// nor sets every field it converts (the classic upstream pitfall: a field added after the
// function was written), and one that calls it but never reads a field conversion-gen noted as
// requiring manual conversion (fieldReads.unread). Each such field is silently dropped
// whenever an object passes through that conversion.
func warnLostFields(ctx *engine.LoadContext, f *ast.File, v *model.Version) {
	generated := funcDecls(f)
	imports := fileImports(f)
	reads := readsOf(ctx.Load.Universe, v)
	for _, name := range slices.Sorted(maps.Keys(v.HandConversions)) {
		hand := v.HandConversions[name]
		auto := generated["auto"+name]
		if auto == nil || generated[name] != nil {
			continue
		}
		if hand.CallsAuto {
			warnUnreadFields(ctx, f, auto, name, hand, reads, v.Package, imports)
			continue
		}
		if hand.Whole {
			continue
		}
		converted := autoConverted(ctx, auto, v.Package, imports)
		var lost []string
		for _, field := range converted {
			if !slices.Contains(hand.Sets, field) {
				lost = append(lost, field)
			}
		}
		if len(lost) == 0 {
			continue
		}
		outType := exprString(auto.Type.Params.List[1].Type.(*ast.StarExpr).X)
		ctx.Warn(hand.Pos, "%s loses %s on every conversion: it neither sets %s nor calls auto%s, which would; "+
			"call auto%s first, then convert what it leaves to you",
			name, fieldList(outType, lost), fieldWord(lost), name, name)
	}
}

// warnUnreadFields warns at hand-written conversion function name, which calls its
// autoConvert_ function auto, when no conversion of the package reads a field of its input
// that conversion-gen noted in auto as requiring manual conversion (fieldReads.unread):
// conversion-gen converts no such field, so the package's conversions are the only code that
// could.
func warnUnreadFields(ctx *engine.LoadContext, f *ast.File, auto *ast.FuncDecl, name string, hand model.HandConversion, reads *fieldReads, local string, imports map[string]string) {
	inType := auto.Type.Params.List[0].Type.(*ast.StarExpr).X
	lost := reads.unread(manualFields(f, auto), hand, structType(ctx.Load.Universe, typeName(inType, local, imports)))
	if len(lost) == 0 {
		return
	}
	var fields, because []string
	for i := 0; i < len(lost); {
		j := i + 1
		for j < len(lost) && lost[j].reason == lost[i].reason {
			j++
		}
		var names []string
		for _, m := range lost[i:j] {
			names = append(names, m.field)
		}
		fields = append(fields, names...)
		because = append(because, fieldList(exprString(inType), names)+": "+lost[i].reason)
		i = j
	}
	why := lost[0].reason
	if len(because) > 1 {
		why = strings.Join(because, "; ")
	}
	ctx.Warn(hand.Pos, "%s calls auto%s but never reads %s, which conversion-gen cannot convert (%s): "+
		"objects lose %s whenever they cross this conversion; convert %s in %s (into an annotation, or the peer's equivalent field)",
		name, name, fieldList(exprString(inType), fields), why, fieldWord(fields), fieldWord(fields), name)
}

// structType is the struct type name of the universe, or nil when the universe does not
// hold it (or it is no struct).
func structType(u types.Universe, name types.Name) *types.Type {
	if pkg := u[name.Package]; pkg != nil {
		if t := pkg.Types[name.Name]; t != nil && t.Kind == types.Struct {
			return t
		}
	}
	return nil
}

// fieldReads is what a version package's hand-written conversions read of the structs they
// convert: each function's reads (model.HandConversion.Reads) followed from its input type
// through the fields' types, so that a field read by the conversion of an enclosing type
// counts (k8s.io/kubernetes' style: the object's conversion moves spec.x to an annotation,
// the spec's own conversion leaves it alone).
type fieldReads struct {
	// fields are the fields read, by struct type.
	fields map[types.Name]map[string]bool
	// whole are the struct types some conversion may read any field of: an input or a value
	// used whole (model.HandConversion.ReadsWhole and Hands), a method called or a promoted
	// field read on it, and every struct such a value holds.
	whole map[types.Name]bool
	// methods are the names the package's ConvertTo and ConvertFrom select.
	methods []string
}

// readsOf follows the reads of version v's hand-written conversions through the universe.
func readsOf(u types.Universe, v *model.Version) *fieldReads {
	r := &fieldReads{fields: map[types.Name]map[string]bool{}, whole: map[types.Name]bool{}, methods: v.MethodReads}
	pkg := u[v.Package]
	if pkg == nil {
		return r
	}
	for _, name := range slices.Sorted(maps.Keys(v.HandConversions)) {
		hand := v.HandConversions[name]
		var in *types.Type
		if fn := pkg.Functions[name]; fn != nil && fn.Underlying != nil && fn.Underlying.Signature != nil {
			if params := fn.Underlying.Signature.Parameters; len(params) == 3 && params[0].Type != nil {
				in = params[0].Type.Elem
			}
		}
		if in == nil {
			continue
		}
		if hand.ReadsWhole {
			r.readWhole(in)
		}
		for _, path := range hand.Reads {
			r.follow(in, strings.Split(path, "."), false)
		}
		for _, path := range hand.Hands {
			r.follow(in, strings.Split(path, "."), true)
		}
	}
	return r
}

// follow records the fields path selects from a value of type t, and, when whole, every
// field of the value it ends at.
func (r *fieldReads) follow(t *types.Type, path []string, whole bool) {
	for _, step := range path {
		t = structOf(t)
		if t == nil {
			return
		}
		i := slices.IndexFunc(t.Members, func(m types.Member) bool { return m.Name == step })
		if i < 0 {
			r.readWhole(t) // a method, or a field of an embedded struct
			return
		}
		if r.fields[t.Name] == nil {
			r.fields[t.Name] = map[string]bool{}
		}
		r.fields[t.Name][step] = true
		t = t.Members[i].Type
	}
	if whole {
		r.readWhole(t)
	}
}

// readWhole records every field of t, and of every struct it holds, as read.
func (r *fieldReads) readWhole(t *types.Type) {
	if t = structOf(t); t == nil || r.whole[t.Name] {
		return
	}
	r.whole[t.Name] = true
	for _, m := range t.Members {
		r.readWhole(m.Type)
	}
}

// structOf is the struct a value of type t holds, through pointers, slices, arrays, maps'
// values and aliases, or nil.
func structOf(t *types.Type) *types.Type {
	for t != nil {
		switch t.Kind {
		case types.Struct:
			return t
		case types.Pointer, types.Slice, types.Array, types.Map:
			t = t.Elem
		case types.Alias:
			t = t.Underlying
		default:
			return nil
		}
	}
	return nil
}

// unread are the fields of manual, sorted by reason and then by name, that no conversion of
// the package reads, for hand-written conversion hand of a value of type in. Conservatively,
// each is read when hand uses its input whole (ReadsWhole), the input type is unknown, some
// conversion may read any field of in's type (whole) or reads the field, or a ConvertTo or
// ConvertFrom selects its name.
func (r *fieldReads) unread(manual []manualField, hand model.HandConversion, in *types.Type) []manualField {
	if hand.ReadsWhole || in == nil || r.whole[in.Name] {
		return nil
	}
	var unread []manualField
	for _, m := range manual {
		if !r.fields[in.Name][m.field] && !slices.Contains(r.methods, m.field) &&
			!slices.ContainsFunc(unread, func(u manualField) bool { return u.field == m.field }) {
			unread = append(unread, m)
		}
	}
	slices.SortStableFunc(unread, func(a, b manualField) int {
		return cmp.Or(strings.Compare(a.reason, b.reason), strings.Compare(a.field, b.field))
	})
	return unread
}

// autoConverted are the Go names of the output fields a generated autoConvert_ function
// sets, sorted: every out.Field it mentions, or every field of the output type when it
// copies the whole value (*out = ...).
func autoConverted(ctx *engine.LoadContext, auto *ast.FuncDecl, local string, imports map[string]string) []string {
	fields := map[string]bool{}
	whole := false
	ast.Inspect(auto.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok && id.Name == "out" {
				fields[n.Sel.Name] = true
			}
		case *ast.StarExpr:
			if id, ok := n.X.(*ast.Ident); ok && id.Name == "out" {
				whole = true
			}
		}
		return true
	})
	if whole {
		outType := auto.Type.Params.List[1].Type.(*ast.StarExpr).X
		if t := ctx.Load.Universe.Type(typeName(outType, local, imports)); t != nil {
			for _, m := range t.Members {
				fields[m.Name] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(fields))
}

// fieldList names fields of type typ: "FlunderSpec.Replicas", "FlunderSpec.Replicas and
// FlunderSpec.Selector".
func fieldList(typ string, fields []string) string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = typ + "." + f
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// fieldWord is "it" for one field and "them" for several.
func fieldWord(fields []string) string {
	if len(fields) == 1 {
		return "it"
	}
	return "them"
}

// ConversionStubFile is the user-owned file apigen generate --scaffold-conversions writes in a
// version directory.
const ConversionStubFile = "conversion.go"

// typeName resolves a type as the generated file writes it (FlunderSpec, v1beta1.FlunderSpec).
func typeName(e ast.Expr, local string, imports map[string]string) types.Name {
	if sel, ok := e.(*ast.SelectorExpr); ok {
		if pkg, ok := sel.X.(*ast.Ident); ok {
			return types.Name{Package: imports[pkg.Name], Name: sel.Sel.Name}
		}
	}
	return types.Name{Package: local, Name: exprString(e)}
}

// conversionSignature reports whether fn is func(in *In, out *Out, s conversion.Scope) error.
func conversionSignature(fn *types.Type, in, out types.Name) bool {
	if fn.Underlying == nil || fn.Underlying.Signature == nil {
		return false
	}
	sig := fn.Underlying.Signature
	ptrTo := func(t *types.Type, name types.Name) bool {
		return t.Kind == types.Pointer && t.Elem != nil && t.Elem.Name == name
	}
	return sig.Receiver == nil && len(sig.Parameters) == 3 && len(sig.Results) == 1 &&
		ptrTo(sig.Parameters[0].Type, in) && ptrTo(sig.Parameters[1].Type, out) &&
		sig.Parameters[2].Type.Name == types.Name{Package: "k8s.io/apimachinery/pkg/conversion", Name: "Scope"} &&
		sig.Results[0].Type.Name.Name == "error"
}

func exprString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprString(e.X) + "." + e.Sel.Name
	}
	return fmt.Sprintf("%T", e)
}
