package parse

import (
	"go/ast"
	"go/token"
	"strconv"

	gengotypes "k8s.io/gengo/v2/types"

	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/model"
)

// packageGroup is the group as a version package's doc comments name it (+groupName): its
// Name and Pos, empty when they name none.
func (p *parser_) packageGroup(files []*ast.File) *model.Group {
	g := &model.Group{}
	for _, m := range p.packageMarkers(files) {
		switch effect := m.Args.(type) {
		case markers.ProjectEffect:
			p.errs.Add(m.Pos, "+%s belongs in pkg/apis/doc.go, the project's package, not in a version's package", m.Name)
		case markers.GroupEffect:
			if err := effect.ApplyToGroup(m, g); err != nil {
				p.errs.Add(m.Pos, "%v", err)
			}
		}
	}
	return g
}

// registeredGroup finds the group in the package's own registration, for packages that name
// it in Go rather than in +groupName (k8s.io/api's apps, batch, autoscaling, policy, … since
// v0.37): the string constant GroupName, or the Group of a SchemeGroupVersion (or kubebuilder's
// GroupVersion) declared as a composite literal with a string.
func (p *parser_) registeredGroup(files []*ast.File, gpkg *gengotypes.Package, declPos map[string]token.Position) (string, token.Position) {
	if c := gpkg.Constants["GroupName"]; c != nil && c.ConstValue != nil && *c.ConstValue != "" {
		return *c.ConstValue, declPos["GroupName"] // gengo keeps a string constant unquoted
	}
	for _, f := range files {
		for _, d := range f.Decls {
			decl, ok := d.(*ast.GenDecl)
			if !ok || decl.Tok != token.VAR {
				continue
			}
			for _, spec := range decl.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if (n.Name != "SchemeGroupVersion" && n.Name != "GroupVersion") || i >= len(vs.Values) {
						continue
					}
					if group, pos, ok := literalGroup(vs.Values[i]); ok {
						return group, p.pos(pos)
					}
				}
			}
		}
	}
	return "", token.Position{}
}

// literalGroup reads the Group of a schema.GroupVersion{Group: "…", …} literal.
func literalGroup(e ast.Expr) (string, token.Pos, bool) {
	lit, ok := e.(*ast.CompositeLit)
	if !ok {
		return "", token.NoPos, false
	}
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if key, isIdent := kv.Key.(*ast.Ident); !ok || !isIdent || key.Name != "Group" {
			continue
		}
		if value, ok := kv.Value.(*ast.BasicLit); ok && value.Kind == token.STRING {
			if group, err := strconv.Unquote(value.Value); err == nil {
				return group, value.Pos(), true
			}
		}
	}
	return "", token.NoPos, false
}
