package parse

import (
	"go/ast"
	"go/token"
	"maps"
	"slices"
	"strings"

	gengotypes "k8s.io/gengo/v2/types"

	"github.com/apigen-dev/apigen/generators/model"
)

// handConversions reads what each hand-written Convert_ function of a package does with its
// input and output: whether it calls conversion-gen's autoConvert_ of the same name, which of
// the output's fields it mentions and which of the input's it reads. A function written before
// a field existed and never updated drops that field on every conversion, and so does one that
// calls its autoConvert_ but never reads a field conversion-gen left to it; the conversion
// generator compares these facts with conversion-gen's autoConvert_ function and names the
// fields that are lost.
func (p *parser_) handConversions(files []*ast.File) map[string]model.HandConversion {
	out := map[string]model.HandConversion{}
	for _, f := range files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || fn.Body == nil || !strings.HasPrefix(fn.Name.Name, "Convert_") {
				continue
			}
			params := fn.Type.Params.List
			if len(params) != 3 || len(params[1].Names) != 1 {
				continue // not a conversion function; conversion-gen's check reports its signature
			}
			inName := ""
			if len(params[0].Names) == 1 {
				inName = params[0].Names[0].Name
			}
			out[fn.Name.Name] = readConversion(fn, inName, params[1].Names[0].Name, p.pos(fn.Name.Pos()))
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// readConversion reads the body of conversion function fn whose input parameter is named
// inName ("" or "_" when it has none to read) and output parameter outName.
func readConversion(fn *ast.FuncDecl, inName, outName string, pos token.Position) model.HandConversion {
	c := model.HandConversion{Pos: pos}
	sets, reads, hands := map[string]bool{}, map[string]bool{}, map[string]bool{}
	auto := "auto" + fn.Name.Name
	// selected are the identifiers that are the root of an out.Field or in.Field selector;
	// handed are those of in that are an argument of the call of its autoConvert_, which
	// converts what it can and leaves the rest to the function. Every other use of in or out
	// hands it on as a whole.
	selected, handed := map[*ast.Ident]bool{}, map[*ast.Ident]bool{}
	var stack []ast.Node // the nodes from fn.Body down to the one visited
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		switch n := n.(type) {
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && id.Name == auto {
				c.CallsAuto = true
				for _, arg := range n.Args {
					if id, ok := arg.(*ast.Ident); ok && id.Name == inName {
						handed[id] = true
					}
				}
			}
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok && id.Name == outName {
				sets[n.Sel.Name] = true
				selected[id] = true
			}
			if root, path := selectorPath(n); root != nil && root.Name == inName {
				selected[root] = true
				reads[path] = true
				if usedWhole(stack) {
					hands[path] = true
				}
			}
		}
		return true
	})
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && !selected[id] {
			switch {
			case id.Name == outName:
				c.Whole = true
			case id.Name == inName && inName != "_" && !handed[id]:
				c.ReadsWhole = true
			}
		}
		return !c.Whole || !c.ReadsWhole
	})
	// A path another extends is read along the way.
	for path := range reads {
		for other := range reads {
			if strings.HasPrefix(other, path+".") {
				delete(reads, path)
				break
			}
		}
	}
	c.Sets = slices.Sorted(maps.Keys(sets))
	c.Reads = slices.Sorted(maps.Keys(reads))
	c.Hands = slices.Sorted(maps.Keys(hands))
	return c
}

// selectorPath is the identifier a chain of selectors starts from and the dotted path of
// selectors from it: in and Spec.Items.Name for in.Spec.Items[i].Name. Index expressions,
// parentheses and dereferences are part of the chain; a call is not (in.Spec.Get().Name has
// no root).
func selectorPath(sel *ast.SelectorExpr) (*ast.Ident, string) {
	path := []string{sel.Sel.Name}
	e := sel.X
	for {
		switch x := e.(type) {
		case *ast.Ident:
			slices.Reverse(path)
			return x, strings.Join(path, ".")
		case *ast.SelectorExpr:
			path = append(path, x.Sel.Name)
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		default:
			return nil, ""
		}
	}
}

// usedWhole reports whether the selector chain at the end of stack (the nodes from a
// function's body down to it) is a value used whole: copied (assigned, returned, put in a
// composite literal, ranged over) or passed to a function other than a Convert_ or
// autoConvert_ one, which convert it field by field. A chain selected further, called as a
// method, compared or tested is not.
func usedWhole(stack []ast.Node) bool {
	i := len(stack) - 1
	e := stack[i].(ast.Expr)
	// Climb through what keeps the chain's value: an index, parentheses, & and *.
	for i--; i >= 0; i-- {
		switch p := stack[i].(type) {
		case *ast.IndexExpr:
			if p.X != e {
				return false
			}
		case *ast.IndexListExpr:
			if p.X != e {
				return false
			}
		case *ast.ParenExpr, *ast.StarExpr:
		case *ast.UnaryExpr:
			if p.Op != token.AND {
				return false
			}
		default:
			return usedWholeBy(p, e)
		}
		e = stack[i].(ast.Expr)
	}
	return false
}

// usedWholeBy reports whether parent uses its child expression e whole (usedWhole).
func usedWholeBy(parent ast.Node, e ast.Expr) bool {
	switch p := parent.(type) {
	case *ast.CallExpr:
		if p.Fun == e {
			return false // a method called
		}
		callee := ""
		switch f := p.Fun.(type) {
		case *ast.Ident:
			callee = f.Name
		case *ast.SelectorExpr:
			callee = f.Sel.Name
		}
		return !strings.HasPrefix(callee, "Convert_") && !strings.HasPrefix(callee, "autoConvert_")
	case *ast.AssignStmt:
		return slices.Contains(p.Rhs, e)
	case *ast.ValueSpec:
		return slices.Contains(p.Values, e)
	case *ast.ReturnStmt:
		return slices.Contains(p.Results, e)
	case *ast.CompositeLit:
		return slices.Contains(p.Elts, e)
	case *ast.KeyValueExpr:
		return p.Value == e
	case *ast.RangeStmt:
		return p.X == e
	case *ast.SendStmt:
		return p.Value == e
	}
	return false
}

// methodReads are the names the ConvertTo and ConvertFrom methods among a package's files
// select, sorted.
func methodReads(files []*ast.File) []string {
	names := map[string]bool{}
	for _, f := range files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Body == nil || fn.Name.Name != "ConvertTo" && fn.Name.Name != "ConvertFrom" {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					names[sel.Sel.Name] = true
				}
				return true
			})
		}
	}
	return slices.Sorted(maps.Keys(names))
}

// crConversionPkg declares controller-runtime's conversion interfaces: Hub, a type with a
// Hub() method, and Convertible, one with ConvertTo and ConvertFrom.
const crConversionPkg = "sigs.k8s.io/controller-runtime/pkg/conversion"

// convertSignature is ConvertTo's and ConvertFrom's signature in conversion.Convertible.
var convertSignature = funcString(crConversionPkg+".Hub", []string{"error"})

// conversionRole reads the part a kind's type plays in controller-runtime's conversions: a
// type with Hub() is a hub; one with ConvertTo and ConvertFrom of Convertible's signature is a
// spoke. A method named Hub, ConvertTo or ConvertFrom with another signature is some other
// method and plays no part, except when its twin has Convertible's signature: then the user
// meant a spoke, which needs both directions.
func (p *parser_) conversionRole(t *gengotypes.Type) (model.ConversionRole, token.Position) {
	if t == nil {
		return "", token.Position{}
	}
	kind := t.Name.Name
	signature := func(name string) (string, bool) {
		m, ok := t.Methods[name]
		if !ok || m.Signature == nil {
			return "", false
		}
		return describe(m.Signature, t), true
	}
	if sig, _ := signature("Hub"); sig == "func()" {
		return model.ConversionHub, p.methodPos(t, "Hub")
	}
	to, _ := signature("ConvertTo")
	from, _ := signature("ConvertFrom")
	switch {
	case to == convertSignature && from == convertSignature:
		return model.ConversionSpoke, p.methodPos(t, "ConvertTo")
	case to == convertSignature || from == convertSignature:
		have, want := "ConvertTo", "ConvertFrom"
		if from == convertSignature {
			have, want = want, have
		}
		if sig, ok := signature(want); ok {
			p.errs.Add(p.methodPos(t, want), "method %s.%s has signature %s; with %s.%s it must implement controller-runtime's conversion.Convertible, which needs %s",
				kind, want, sig, kind, have, convertSignature)
		} else {
			p.errs.Add(p.methodPos(t, have), "%s has %s but no %s; controller-runtime's conversion.Convertible needs both, so that the server converts %s to its hub and back: add func (*%s) %s(%s conversion.Hub) error",
				kind, have, want, kind, kind, want, map[string]string{"ConvertTo": "dst", "ConvertFrom": "src"}[want])
		}
	}
	return "", token.Position{}
}

// checkMethodConversions checks the controller-runtime conversions of a group's kinds. The
// hub, the version whose type has Hub(), is the internal version every request converts
// through; it may be another version than the storage version (kueue v0.15 stores in v1beta1
// and has Hub() on v1beta2), which then converts on the way to and from etcd through its own
// ConvertTo/ConvertFrom. A spoke needs a hub to convert to. A group with internal
// types converts through them, with Convert_ functions, so Hub() and ConvertTo there would
// never be called.
func (p *parser_) checkMethodConversions(g *model.Group) {
	for _, v := range g.Versions {
		for _, r := range v.Resources {
			if r.Conversion == "" {
				continue
			}
			method := map[model.ConversionRole]string{model.ConversionHub: "Hub", model.ConversionSpoke: "ConvertTo"}[r.Conversion]
			stored, _ := g.Stored(r.Kind)
			switch {
			case g.Internal != nil:
				p.errs.Add(r.ConversionPos, "method %s.%s is never called: group %s has internal types in %s, which are every kind's hub; convert %s to and from them with Convert_ functions",
					r.Kind, method, g.Name, g.Internal.Dir, v.Name)
			case stored == nil:
				// No storage version: validation reports it.
			case r.Conversion == model.ConversionSpoke && stored == v && !hasHub(g, r.Kind):
				p.errs.Add(r.ConversionPos, "method %s.ConvertTo is never called: %s is %s's storage version, which is its hub; give %s's %s a Hub() method instead, and ConvertTo/ConvertFrom to the other versions",
					r.Kind, v.Name, r.Kind, v.Name, r.Kind)
			case r.Conversion == model.ConversionSpoke && stored == v:
				// The hub is another version: objects are stored in this one, converted to and
				// from the hub by its ConvertTo/ConvertFrom, as a CRD's webhook converts them.
			case r.Conversion == model.ConversionSpoke && stored.Kind(r.Kind).Conversion != model.ConversionHub && !hasHub(g, r.Kind):
				p.errs.Add(r.ConversionPos, "method %s.ConvertTo converts %s to its hub, but %s's storage version %s declares no Hub() on %s; add func (*%s) Hub() {} in %s",
					r.Kind, v.Name, r.Kind, stored.Name, r.Kind, r.Kind, stored.Dir)
			}
		}
	}
}

// hasHub reports whether a version of the group gives kind a Hub() method.
func hasHub(g *model.Group, kind string) bool {
	for _, v := range g.Versions {
		if r := v.Kind(kind); r != nil && r.Conversion == model.ConversionHub {
			return true
		}
	}
	return false
}
