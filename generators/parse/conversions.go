package parse

import (
	"go/ast"
	"go/token"
	"maps"
	"slices"
	"strings"

	"github.com/apigen-dev/apigen/generators/model"
)

// handConversions reads what each hand-written Convert_ function of a package does with its
// output: whether it calls conversion-gen's autoConvert_ of the same name, and which of the
// output's fields it mentions. A function written before a field existed and never updated
// drops that field on every conversion; the conversion generator compares these facts with
// what its autoConvert_ function sets and names the fields that are lost.
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
			out[fn.Name.Name] = readConversion(fn, params[1].Names[0].Name, p.pos(fn.Name.Pos()))
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// readConversion reads the body of conversion function fn whose output parameter is named
// outName.
func readConversion(fn *ast.FuncDecl, outName string, pos token.Position) model.HandConversion {
	c := model.HandConversion{Pos: pos}
	sets := map[string]bool{}
	auto := "auto" + fn.Name.Name
	// selected are the identifiers that are the X of an out.Field selector: every other use
	// of out hands it on as a whole.
	selected := map[*ast.Ident]bool{}
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && id.Name == auto {
				c.CallsAuto = true
			}
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok && id.Name == outName {
				sets[n.Sel.Name] = true
				selected[id] = true
			}
		}
		return true
	})
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == outName && !selected[id] {
			c.Whole = true
		}
		return !c.Whole
	})
	c.Sets = slices.Sorted(maps.Keys(sets))
	return c
}
