// The writing of zz_generated.validations.go, from the graph validation.go builds.

package kube

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"

	vgutil "k8s.io/code-generator/cmd/validation-gen/util"
	"k8s.io/code-generator/cmd/validation-gen/validators"
	"k8s.io/gengo/v2/generator"
	"k8s.io/gengo/v2/namer"
	"k8s.io/gengo/v2/types"
)

// validationFile writes one package's zz_generated.validations.go.
type validationFile struct {
	generator.GoGenerator
	pkg          string
	d            *discoverer
	kinds        []*types.Type // the package's kinds with rules, registered with the scheme
	subresources map[*types.Type][]string
	imports      namer.ImportTracker
	// current is the type whose function is being written.
	current *types.Type
	// installed says the install package registers the validations (the package has no
	// localSchemeBuilder).
	installed bool
}

// hasContent says whether the package gets a file: a kind, or a type a kind uses, has rules.
func (g *validationFile) hasContent(pkg *types.Package) bool {
	if len(g.kinds) > 0 || len(g.externalTypes()) > 0 {
		return true
	}
	for _, t := range pkg.Types {
		if g.Filter(nil, t) {
			return true
		}
	}
	return false
}

func (g *validationFile) Filter(_ *generator.Context, t *types.Type) bool {
	n := g.d.nodes[t]
	return t.Name.Package == g.pkg && n != nil && (n.referenced || slices.Contains(g.kinds, t)) && g.d.hasValidations(n)
}

// externalTypes are the Kubernetes types with rules the package's kinds use, by name.
func (g *validationFile) externalTypes() []*types.Type {
	seen := map[*vnode]bool{}
	var out []*types.Type
	var walk func(n *vnode)
	walk = func(n *vnode) {
		if n == nil || seen[n] || n.typeVals.OpaqueType {
			return
		}
		seen[n] = true
		if g.d.external[n.t.Name.Package] && n.fn.Name != "" && g.d.hasValidations(n) {
			out = append(out, n.t)
		}
		for _, c := range append([]*vchild{n.key, n.elem, n.underlying}, n.fields...) {
			if c != nil {
				walk(c.node)
			}
		}
	}
	for _, t := range g.kinds {
		walk(g.d.nodes[t])
	}
	slices.SortFunc(out, func(a, b *types.Type) int { return cmp.Compare(a.Name.String(), b.Name.String()) })
	return out
}

// fn is the function a validator name refers to from this package: another package's type's
// Validate_ function is this package's copy, named after its package (Validate_corev1_PodSpec,
// Validate_apisshared_Origin; see packageAliases).
func (g *validationFile) fn(name types.Name) *types.Type {
	if g.d.external[name.Package] && strings.HasPrefix(name.Name, "Validate_") {
		name = types.Name{Package: g.pkg, Name: "Validate_" + g.d.aliases[name.Package] + "_" + strings.TrimPrefix(name.Name, "Validate_")}
	}
	return named(name)
}

// packageAliases names each of the packages paths in identifiers: a Kubernetes API package
// as it is usually imported (k8s.io/api/core/v1 is corev1), the others after their last two
// path elements as well (pkg/apis/shared is apisshared), with more of the path where two
// packages would have the same name (pkg/apis/shared and pkg/legacy/apis/shared are
// pkgapisshared and legacyapisshared), and a number after the whole path where even that is
// the same (a-b and ab). The names are letters and digits only, so
// Validate_<alias>_<Type> cannot be another package's alias with another type's name either.
func packageAliases(paths []string) map[string]string {
	paths = slices.Sorted(slices.Values(paths))
	elems := map[string][]string{}
	used := map[string]int{} // trailing elements each alias is made of
	for _, p := range paths {
		for _, e := range strings.Split(p, "/") {
			elems[p] = append(elems[p], strings.Map(func(r rune) rune {
				if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
					return r
				}
				return -1
			}, e))
		}
		used[p] = min(2, len(elems[p]))
	}
	alias := func(p string) string { return strings.Join(elems[p][len(elems[p])-used[p]:], "") }
	for {
		by := map[string][]string{}
		for _, p := range paths {
			by[alias(p)] = append(by[alias(p)], p)
		}
		longer := false
		for _, same := range by {
			for _, p := range same {
				if len(same) > 1 && used[p] < len(elems[p]) {
					used[p]++
					longer = true
				}
			}
		}
		if !longer {
			break
		}
	}
	out := map[string]string{}
	taken := map[string]bool{}
	for _, p := range paths {
		taken[alias(p)] = true
	}
	seen := map[string]bool{}
	for _, p := range paths { // sorted: the first of packages with one whole path keeps it
		a := alias(p)
		if seen[a] {
			for i := 2; ; i++ {
				if n := fmt.Sprintf("%s%d", a, i); !taken[n] {
					a = n
					break
				}
			}
		}
		seen[a], taken[a] = true, true
		out[p] = a
	}
	return out
}

func (g *validationFile) Namers(*generator.Context) namer.NameSystems {
	return namer.NameSystems{"raw": namer.NewRawNamer(g.pkg, g.imports)}
}

func (g *validationFile) Imports(*generator.Context) []string {
	var lines []string
	for _, line := range g.imports.ImportLines() {
		if !strings.HasSuffix(line, `"`+g.pkg+`"`) {
			lines = append(lines, line)
		}
	}
	return lines
}

// named is a standalone type naming an identifier, for the raw namer (which tracks imports).
func named(n types.Name) *types.Type { return &types.Type{Name: n} }

var (
	fieldPath      = named(types.Name{Package: "k8s.io/apimachinery/pkg/util/validation/field", Name: "Path"})
	fieldErrorList = named(types.Name{Package: "k8s.io/apimachinery/pkg/util/validation/field", Name: "ErrorList"})
	fieldInternal  = named(types.Name{Package: "k8s.io/apimachinery/pkg/util/validation/field", Name: "InternalError"})
	fmtErrorf      = named(types.Name{Package: "fmt", Name: "Errorf"})
	operationOp    = named(types.Name{Package: "k8s.io/apimachinery/pkg/api/operation", Name: "Operation"})
	operationUpd   = named(types.Name{Package: "k8s.io/apimachinery/pkg/api/operation", Name: "Update"})
	contextContext = named(types.Name{Package: "context", Name: "Context"})
	safeField      = named(types.Name{Package: "k8s.io/apimachinery/pkg/api/safe", Name: "Field"})
	safeCast       = named(types.Name{Package: "k8s.io/apimachinery/pkg/api/safe", Name: "Cast"})
	safeValue      = named(types.Name{Package: "k8s.io/apimachinery/pkg/api/safe", Name: "Value"})
	semantic       = named(types.Name{Package: "k8s.io/apimachinery/pkg/api/equality", Name: "Semantic"})
	runtimeScheme  = named(types.Name{Package: "k8s.io/apimachinery/pkg/runtime", Name: "Scheme"})
)

func (g *validationFile) Init(c *generator.Context, w io.Writer) error {
	if len(g.kinds) == 0 {
		return nil
	}
	sw := generator.NewSnippetWriter(w, c, "$", "$")
	if !g.installed {
		sw.Do("func init() { localSchemeBuilder.Register(RegisterValidations) }\n\n", nil)
	}
	sw.Do("// RegisterValidations adds the declarative validation of this package's kinds to a scheme.\n", nil)
	sw.Do("func RegisterValidations(scheme *$.|raw$) error {\n", runtimeScheme)
	for _, t := range g.kinds {
		quoted := make([]string, 0, len(g.subresources[t]))
		for _, s := range g.subresources[t] {
			quoted = append(quoted, strconv.Quote(s))
		}
		args := generator.Args{
			"kind": t, "fn": named(g.d.nodes[t].fn), "subresources": strings.Join(quoted, ", "),
			"ctx": contextContext, "op": operationOp, "errs": fieldErrorList, "internal": fieldInternal,
			"errorf": fmtErrorf, "cast": safeCast,
		}
		sw.Do("scheme.AddValidationFunc((*$.kind|raw$)(nil), func(ctx $.ctx|raw$, op $.op|raw$, obj, oldObj interface{}) $.errs|raw$ {\n", args)
		sw.Do("switch op.Request.SubresourcePath() {\n", nil)
		sw.Do("case $.subresources$:\n", args)
		sw.Do("return $.fn|raw$(ctx, op, nil /* fldPath */, obj.(*$.kind|raw$), $.cast|raw$[*$.kind|raw$](oldObj))\n", args)
		sw.Do("}\n", nil)
		sw.Do("return $.errs|raw${$.internal|raw$(nil, $.errorf|raw$(\"no validation found for %T, subresource: %v\", obj, op.Request.SubresourcePath()))}\n", args)
		sw.Do("})\n", nil)
	}
	sw.Do("return nil\n}\n\n", nil)
	return sw.Error()
}

func (g *validationFile) GenerateType(c *generator.Context, t *types.Type, w io.Writer) error {
	return g.emitFunction(c, t, w)
}

// Finalize writes the package's copies of the Validate_ functions of the Kubernetes types its
// kinds use, after its own.
func (g *validationFile) Finalize(c *generator.Context, w io.Writer) error {
	for _, t := range g.externalTypes() {
		if err := g.emitFunction(c, t, w); err != nil {
			return err
		}
	}
	return nil
}

// emitFunction writes the Validate_ function of a type, and the variables its rules use.
func (g *validationFile) emitFunction(c *generator.Context, t *types.Type, w io.Writer) error {
	sw := generator.NewSnippetWriter(w, c, "$", "$")
	n := g.d.nodes[t]
	g.current = t
	g.emitVariables(sw, n)
	pfx := "*"
	if vgutil.IsNilableType(t) {
		pfx = ""
	}
	args := generator.Args{"type": t, "fn": g.fn(n.fn), "ctx": contextContext, "op": operationOp, "path": fieldPath, "errs": fieldErrorList, "pfx": pfx}
	sw.Do("// $.fn|raw$ validates an instance of $.type|raw$ according\n// to declarative validation rules in the API schema.\n", args)
	sw.Do("func $.fn|raw$(ctx $.ctx|raw$, op $.op|raw$, fldPath *$.path|raw$, obj, oldObj $.pfx$$.type|raw$) (errs $.errs|raw$) {\n", args)
	g.emitChild(sw, &vchild{node: n, t: t})
	sw.Do("return errs\n}\n\n", nil)
	return sw.Error()
}

// emitVariables declares the package variables the type's rules use (enum symbols, union
// memberships), sorted by name.
func (g *validationFile) emitVariables(sw *generator.SnippetWriter, n *vnode) {
	emit := func(vars []validators.VariableGen) {
		slices.SortFunc(vars, func(a, b validators.VariableGen) int { return cmp.Compare(a.Variable.Name, b.Variable.Name) })
		for _, v := range vars {
			sw.Do("var "+g.private(v.Variable)+" = ", nil)
			g.literal(sw, v.Initializer, true)
			sw.Do("\n", nil)
		}
	}
	emit(n.typeVals.Variables)
	for _, c := range n.fields {
		emit(c.vals.Variables)
	}
}

// private is the Go name of a package variable the rules declare. Union memberships are
// named after the walk's path, from which the run's prefix is taken out again.
func (g *validationFile) private(v validators.PrivateVar) string {
	name := strings.Replace(v.Name, "_"+sanitized(g.d.prefix), "_", 1)
	if g.current != nil && g.d.external[g.current.Name.Package] {
		// A Kubernetes type's enum symbols are named after the type alone, which a type of the
		// package may share.
		name = g.d.aliases[g.current.Name.Package] + "_" + name
	}
	return namer.NewPrivateNamer(0).Name(named(types.Name{Package: v.Package, Name: name}))
}

// sanitized is a path as validation-gen's union validators turn it into an identifier.
func sanitized(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' {
			return r
		}
		return '_'
	}, s)
}

// emitChild writes the checks of a value held in obj and oldObj (nilable) at fldPath: the
// type's own rules, each key's and element's, then each field's.
func (g *validationFile) emitChild(sw *generator.SnippetWriter, c *vchild) {
	n := c.node
	didSome := false
	if v := n.typeVals; !v.Empty() {
		emitComments(sw, v.Comments)
		g.emitCalls(sw, v.Functions)
		sw.Do("\n", nil)
		didSome = true
	}
	for _, it := range []struct {
		vals validators.Validations
		node *vnode
	}{{n.typeKeyIters, n.resolveKey()}, {n.typeValIters, n.resolveElem()}} {
		if !it.vals.Empty() && it.node != nil && g.d.hasValidations(it.node) {
			emitComments(sw, it.vals.Comments)
			g.emitCalls(sw, it.vals.Functions)
			sw.Do("\n", nil)
			didSome = true
		}
	}
	if n.typeVals.OpaqueType {
		return
	}
	switch n.t.Kind {
	case types.Alias:
		if n.underlying.node != nil {
			g.emitChild(sw, n.underlying)
		}
	case types.Struct:
		for _, f := range n.fields {
			if didSome {
				sw.Do("\n", nil)
			}
			g.emitField(sw, n, f)
			didSome = true
		}
	}
}

// emitField writes a struct field's checks in a closure called with the field's value, its
// old value, and whether there was an old value to compare with.
func (g *validationFile) emitField(sw *generator.SnippetWriter, n *vnode, f *vchild) {
	var buf bytes.Buffer
	bsw := sw.Dup(&buf)
	if native := vgutil.NativeType(f.t); native.Kind == types.Slice && native.Elem.Kind == types.Pointer {
		hasNode := f.node != nil && g.d.hasValidations(f.node)
		if len(f.vals.Functions) > 0 || hasNode {
			// A list of pointers is checked for nil elements before anything reads them.
			f.vals.Functions = append([]validators.FunctionGen{validators.PtrSliceNoNils(native.Elem.Elem.Name)}, f.vals.Functions...)
		}
	}
	ratcheted := false
	ratchet := func() {
		if !ratcheted {
			emitRatchet(bsw, f.t)
			ratcheted = true
		}
	}
	if !f.vals.Empty() {
		emitComments(bsw, f.vals.Comments)
		if len(f.vals.Functions) > 0 {
			ratchet()
			bsw.Do("// call field-attached validations\n", nil)
			g.emitCalls(bsw, f.vals.Functions)
		}
	}
	if f.node != nil {
		if k := f.node.t.Kind; (k == types.Alias || k == types.Struct) && g.d.hasValidations(f.node) {
			ratchet()
			bsw.Do("// call the type's validation function\n", nil)
			if f.t.Kind == types.Pointer {
				// An absent value has no rules of its own; validation-gen's linter has the
				// field marked optional, which returns first, and this holds without it.
				bsw.Do("if obj != nil {\n", nil)
			}
			bsw.Do("errs = append(errs, $.|raw$(ctx, op, fldPath, obj, oldObj)...)\n", g.fn(f.node.fn))
			if f.t.Kind == types.Pointer {
				bsw.Do("}\n", nil)
			}
		}
		for _, it := range []struct {
			vals validators.Validations
			node *vnode
		}{{f.keyIters, f.node.resolveKey()}, {f.valIters, f.node.resolveElem()}} {
			if it.vals.Empty() || it.node == nil || !g.d.hasValidations(it.node) {
				continue
			}
			emitComments(bsw, it.vals.Comments)
			if len(it.vals.Functions) > 0 {
				ratchet()
				g.emitCalls(bsw, it.vals.Functions)
			}
		}
		if k := f.node.t.Kind; k == types.Slice || k == types.Map {
			g.emitChild(bsw, f)
		}
	}
	if buf.Len() == 0 {
		sw.Do("// field $.type|raw$.$.name$ has no validation\n", generator.Args{"type": n.t, "name": f.name})
		return
	}
	leaf, typePfx, exprPfx := leafAndPrefixes(f.t)
	args := generator.Args{
		"type": n.t, "name": f.name, "json": f.json, "leaf": leaf, "typePfx": typePfx, "exprPfx": exprPfx,
		"path": fieldPath, "errs": fieldErrorList, "safeField": safeField, "safeValue": safeValue,
	}
	sw.Do("{ // field $.type|raw$.$.name$\n", args)
	sw.Do("fn := func(fldPath *$.path|raw$, obj, oldObj $.typePfx$$.leaf|raw$, oldValueCorrelated bool) (errs $.errs|raw$) {\n", args)
	if err := sw.Merge(&buf, bsw); err != nil {
		panic(fmt.Sprintf("merging the checks of %s.%s: %v", n.t, f.name, err))
	}
	sw.Do("return\n}\n", nil)
	// The old value is nil both when the old object had none and when it had no place for
	// one (a map entry); oldValueCorrelated tells the two apart for ratcheting.
	sw.Do("oldVal := $.safeField|raw$(oldObj, func(oldObj *$.type|raw$) $.typePfx$$.leaf|raw$ { return $.exprPfx$oldObj.$.name$ })\n", args)
	if f.json != "" {
		sw.Do("errs = append(errs, fn(fldPath.Child(\"$.json$\"), $.exprPfx$obj.$.name$, oldVal, oldObj != nil)...)\n", args)
	} else {
		sw.Do("errs = append(errs, fn($.safeValue|raw$(fldPath, func() *$.path|raw$ { return fldPath.Child(\"$.leaf|raw$\") }), $.exprPfx$obj.$.name$, oldVal, oldObj != nil)...)\n", args)
	}
	sw.Do("}\n\n", nil)
}

// emitRatchet skips a field's checks on an update that leaves it unchanged.
func emitRatchet(sw *generator.SnippetWriter, t *types.Type) {
	sw.Do("// don't revalidate unchanged data\n", nil)
	sw.Do("if oldValueCorrelated && op.Type == $.|raw$ {\n", operationUpd)
	if vgutil.IsDirectComparable(vgutil.NonPointer(vgutil.NativeType(t))) {
		sw.Do("if obj == oldObj || (obj != nil && oldObj != nil && *obj == *oldObj) {\n", nil)
	} else {
		sw.Do("if $.|raw$.DeepEqual(obj, oldObj) {\n", semantic)
	}
	sw.Do("return nil\n}\n}\n", nil)
}

func emitComments(sw *generator.SnippetWriter, comments []string) {
	for _, c := range comments {
		sw.Do("// "+strings.ReplaceAll(c, "$", "$$")+"\n", nil)
	}
}

// emitCalls writes calls of validation functions, by cohort; in each, the short-circuiting
// ones come first and end the checks when they fail.
func (g *validationFile) emitCalls(sw *generator.SnippetWriter, fns []validators.FunctionGen) {
	for _, cohort := range cohorts(fns) {
		if name := cohort[0].Cohort; name != "" {
			sw.Do("func() { // cohort = $.$\n", strconv.Quote(name))
		}
		g.emitSequence(sw, cohort, func(fn validators.FunctionGen) {
			call := func() {
				g.emitCall(sw, fn, "ctx", "op", "fldPath", "obj", "oldObj")
				if fn.Flags.IsSet(validators.ShortCircuit) {
					sw.Do(".MarkShortCircuit()", nil)
				}
			}
			if !fn.Conditions.Empty() {
				call = g.conditional(sw, fn, call)
			}
			call()
		}, "return // do not proceed")
		if cohort[0].Cohort != "" {
			sw.Do("}()\n", nil)
		}
	}
}

// emitSequence writes calls of validation functions in order, adding their errors to errs: a
// short-circuiting call that fails ends the checks after the last such call (with ret), a
// non-error call only runs.
func (g *validationFile) emitSequence(sw *generator.SnippetWriter, fns []validators.FunctionGen, call func(validators.FunctionGen), ret string) {
	last := -1
	for i, fn := range fns {
		if fn.Flags.IsSet(validators.ShortCircuit) {
			last = i
		}
	}
	if last >= 0 {
		sw.Do("earlyReturn := false\n", nil)
	}
	for i, fn := range fns {
		for _, c := range fn.Comments {
			sw.Do("// "+strings.ReplaceAll(c, "$", "$$")+"\n", nil)
		}
		switch {
		case fn.Flags.IsSet(validators.ShortCircuit):
			sw.Do("if e := ", nil)
			call(fn)
			sw.Do("; len(e) != 0 {\n", nil)
			if !fn.Flags.IsSet(validators.NonError) {
				sw.Do("errs = append(errs, e...)\n", nil)
			}
			sw.Do("earlyReturn = true\n}\n", nil)
			if i == last {
				sw.Do("if earlyReturn {\n"+ret+"\n}\n", nil)
			}
		case fn.Flags.IsSet(validators.NonError):
			call(fn)
			sw.Do("\n", nil)
		default:
			sw.Do("if e := ", nil)
			call(fn)
			sw.Do("; len(e) != 0 {\nerrs = append(errs, e...)\n}\n", nil)
		}
	}
}

// conditional wraps a call in the check of the validation options it depends on (+k8s:ifEnabled,
// +k8s:ifDisabled); an option the request does not define is an internal error.
func (g *validationFile) conditional(sw *generator.SnippetWriter, fn validators.FunctionGen, call func()) func() {
	return func() {
		args := generator.Args{"errs": fieldErrorList, "internal": fieldInternal, "errorf": fmtErrorf}
		sw.Do("func() $.errs|raw$ {\n", args)
		var conds []string
		for _, o := range []struct{ name, option, cond string }{
			{"optionEnabled", fn.Conditions.OptionEnabled, "optionEnabled"},
			{"optionDisabled", fn.Conditions.OptionDisabled, "!optionDisabled"},
		} {
			if o.option == "" {
				continue
			}
			args["opt"] = strconv.Quote(o.option)
			sw.Do(o.name+", defined := op.HasOption($.opt$)\n", args)
			sw.Do("if !defined {\nreturn $.errs|raw${$.internal|raw$(fldPath, $.errorf|raw$(\"undefined validation option %q\", $.opt$))}\n}\n", args)
			conds = append(conds, o.cond)
		}
		sw.Do("if "+strings.Join(conds, " && ")+" {\nreturn ", nil)
		call()
		sw.Do("\n}\nreturn nil // skip validation\n}()", nil)
	}
}

// cohorts groups calls by cohort, the default one first, the others in the order they appear;
// in each, short-circuiting calls come first.
func cohorts(fns []validators.FunctionGen) [][]validators.FunctionGen {
	var names []string
	by := map[string][]validators.FunctionGen{}
	for _, fn := range fns {
		if _, ok := by[fn.Cohort]; !ok {
			names = append(names, fn.Cohort)
		}
		by[fn.Cohort] = append(by[fn.Cohort], fn)
	}
	slices.SortStableFunc(names, func(a, b string) int {
		switch {
		case a == "" && b != "":
			return -1
		case b == "" && a != "":
			return 1
		}
		return 0
	})
	out := make([][]validators.FunctionGen, 0, len(names))
	for _, name := range names {
		c := by[name]
		slices.SortStableFunc(c, func(a, b validators.FunctionGen) int {
			as, bs := a.Flags.IsSet(validators.ShortCircuit), b.Flags.IsSet(validators.ShortCircuit)
			switch {
			case as && !bs:
				return -1
			case bs && !as:
				return 1
			}
			return 0
		})
		out = append(out, c)
	}
	return out
}

// emitCall writes a call of a validation function with the leading arguments, then its own;
// stability marks the errors of alpha and beta rules (kube-apiserver shadows alpha ones and
// enforces beta ones only while the DeclarativeValidationBeta gate is on).
func (g *validationFile) emitCall(sw *generator.SnippetWriter, fn validators.FunctionGen, leading ...string) {
	sw.Do("$.|raw$", g.fn(fn.Function))
	if len(fn.TypeArgs) > 0 {
		sw.Do("[", nil)
		for i, ta := range fn.TypeArgs {
			if i > 0 {
				sw.Do(", ", nil)
			}
			sw.Do("$.|raw$", named(ta))
		}
		sw.Do("]", nil)
	}
	sw.Do("("+strings.Join(leading, ", "), nil)
	for i, arg := range fn.Args {
		if i > 0 || len(leading) > 0 {
			sw.Do(", ", nil)
		}
		g.literal(sw, arg, true)
	}
	sw.Do(")", nil)
	switch fn.StabilityLevel {
	case validators.ValidationStabilityLevelAlpha:
		sw.Do(".MarkAlpha()", nil)
	case validators.ValidationStabilityLevelBeta:
		sw.Do(".MarkBeta()", nil)
	}
}

// literal writes an argument of a validation function as Go source.
func (g *validationFile) literal(sw *generator.SnippetWriter, value any, newlines bool) {
	nl := func() {
		if newlines {
			sw.Do("\n", nil)
		}
	}
	validatorFunc := func(obj *types.Type, body func()) {
		pfx := "*"
		if vgutil.IsNilableType(obj) {
			pfx = ""
		}
		nl()
		sw.Do("func(ctx $.ctx|raw$, op $.op|raw$, fldPath *$.path|raw$, obj, oldObj $.pfx$$.obj|raw$) $.errs|raw$ {\n",
			generator.Args{"ctx": contextContext, "op": operationOp, "path": fieldPath, "errs": fieldErrorList, "obj": obj, "pfx": pfx})
		body()
		sw.Do("}", nil)
	}
	switch v := value.(type) {
	case uint, uint8, uint16, uint32, uint64, int, int8, int16, int32, int64, float32, float64, bool:
		sw.Do(fmt.Sprintf("%v", v), nil)
	case string:
		if s, err := strconv.Unquote(v); err == nil {
			v = s
		}
		sw.Do(strings.ReplaceAll(strconv.Quote(v), "$", "$$"), nil)
	case *types.Type:
		sw.Do("$.|raw$", v)
	case types.Member:
		sw.Do("obj."+v.Name, nil)
	case *types.Member:
		sw.Do("obj."+v.Name, nil)
	case validators.Identifier:
		sw.Do("$.|raw$", named(types.Name(v)))
	case *validators.Identifier:
		sw.Do("$.|raw$", named(types.Name(*v)))
	case validators.PrivateVar:
		sw.Do(g.private(v), nil)
	case *validators.PrivateVar:
		sw.Do(g.private(*v), nil)
	case validators.Literal:
		sw.Do(strings.ReplaceAll(string(v), "$", "$$"), nil)
	case validators.FunctionGen:
		for _, c := range v.Comments {
			sw.Do("// "+strings.ReplaceAll(c, "$", "$$")+"\n", nil)
		}
		g.emitCall(sw, v)
	case validators.WrapperFunction:
		if len(v.Function.Args) == 0 {
			for _, c := range v.Function.Comments {
				sw.Do("// "+strings.ReplaceAll(c, "$", "$$")+"\n", nil)
			}
			sw.Do("$.|raw$", g.fn(v.Function.Function))
			return
		}
		validatorFunc(v.ObjType, func() {
			sw.Do("return ", nil)
			g.emitCall(sw, v.Function, "ctx", "op", "fldPath", "obj", "oldObj")
			sw.Do("\n", nil)
		})
	case validators.MultiWrapperFunction:
		validatorFunc(v.ObjType, func() {
			sw.Do("errs := $.|raw${}\n", fieldErrorList)
			g.emitSequence(sw, v.Functions, func(fn validators.FunctionGen) {
				g.emitCall(sw, fn, "ctx", "op", "fldPath", "obj", "oldObj")
			}, "return errs")
			sw.Do("return errs\n", nil)
		})
	case validators.FunctionLiteral:
		nl()
		sw.Do("func(", nil)
		for i, p := range v.Parameters {
			if i > 0 {
				sw.Do(", ", nil)
			}
			sw.Do(p.Name+" $.|raw$", p.Type)
		}
		sw.Do(")", nil)
		if len(v.Results) > 1 {
			sw.Do(" (", nil)
		} else {
			sw.Do(" ", nil)
		}
		for i, r := range v.Results {
			if i > 0 {
				sw.Do(", ", nil)
			}
			if r.Name != "" {
				sw.Do(r.Name+" ", nil)
			}
			sw.Do("$.|raw$", r.Type)
		}
		if len(v.Results) > 1 {
			sw.Do(")", nil)
		}
		sw.Do(" { "+strings.ReplaceAll(v.Body, "$", "$$")+" }", nil)
	case validators.StructLiteral:
		nl()
		sw.Do("$.|raw$", named(v.Type))
		g.typeArgs(sw, v.TypeArgs)
		sw.Do("{", nil)
		nl()
		for _, f := range v.Fields {
			sw.Do(f.Name+": ", nil)
			g.literal(sw, f.Value, newlines)
			sw.Do(",", nil)
			nl()
		}
		sw.Do("}", nil)
	case validators.SliceLiteral:
		nl()
		sw.Do("[]$.|raw$", named(v.ElementType))
		g.typeArgs(sw, v.ElementTypeArgs)
		sw.Do("{", nil)
		nl()
		for _, e := range v.Elements {
			g.literal(sw, e, newlines)
			sw.Do(",", nil)
			nl()
		}
		sw.Do("}", nil)
	default:
		rv := reflect.ValueOf(value)
		if rv.Kind() != reflect.Array || rv.Type().Elem().Kind() != reflect.String {
			panic(fmt.Sprintf("validation-gen gave an argument of unsupported type %T", value))
		}
		sw.Do(fmt.Sprintf("[%d]%s{", rv.Len(), rv.Type().Elem().Name()), nil)
		for i := range rv.Len() {
			if i > 0 {
				sw.Do(", ", nil)
			}
			g.literal(sw, rv.Index(i).Interface(), newlines)
		}
		sw.Do("}", nil)
	}
}

func (g *validationFile) typeArgs(sw *generator.SnippetWriter, args []*types.Type) {
	if len(args) == 0 {
		return
	}
	sw.Do("[", nil)
	for i, a := range args {
		if i > 0 {
			sw.Do(", ", nil)
		}
		sw.Do("$.|raw$", a)
	}
	sw.Do("]", nil)
}

// leafAndPrefixes returns a field type's value type, the prefix that makes that type nilable,
// and the expression prefix that turns a value of the field into that nilable form: string
// gives (string, "*", "&"), *string gives (string, "*", "").
func leafAndPrefixes(t *types.Type) (*types.Type, string, string) {
	leaf, ptrs := t, 0
	for leaf.Kind == types.Pointer {
		leaf, ptrs = leaf.Elem, ptrs+1
	}
	if vgutil.IsNilableType(leaf) {
		return leaf, "", strings.Repeat("*", ptrs)
	}
	if ptrs == 0 {
		return leaf, "*", "&"
	}
	return leaf, "*", strings.Repeat("*", ptrs-1)
}
