package parse

import (
	"go/ast"
	"strconv"
	"strings"

	"github.com/apigen-dev/apigen/generators/model"
)

// leaveOutUninstalled leaves out of the server the versions that the group's own install
// package (pkg/apis/<group>/install, as in Kubernetes' layout) does not install: the scheme the
// server serves from is the one Install fills, so such a version's kinds are not served, and
// apigen says so at Install rather than generate storage no request reaches. k8s.io/metrics
// installs v1beta1 and v1, not the v1alpha1 it still ships. Nothing changes when Install
// installs no version package by name (it calls a helper apigen cannot follow).
func (p *parser_) leaveOutUninstalled(g *model.Group) {
	in := p.installs[g.Package]
	if in == nil || in.gpkg.Functions["Install"] == nil {
		return
	}
	installed, install := installedPackages(in.files)
	if install == nil {
		return
	}
	namesAVersion := false
	for _, v := range g.Versions {
		namesAVersion = namesAVersion || installed[v.Package]
	}
	if !namesAVersion {
		return
	}
	pos := p.pos(install.Pos())
	for _, v := range g.Versions {
		if installed[v.Package] || len(v.Resources) == 0 {
			continue
		}
		var kinds []string
		for _, r := range v.Resources {
			kinds = append(kinds, r.Kind)
			v.Skipped = append(v.Skipped, model.SkippedKind{Kind: r.Kind, ListKind: r.ListKind, Marker: "Install", Pos: pos})
		}
		v.Resources = nil
		p.Warn(pos, "Install does not install %s/%s (%s), so the server does not serve %s there; install it to serve it",
			g.Name, v.Name, v.Dir, strings.Join(kinds, ", "))
	}
}

// installedPackages returns the packages whose AddToScheme (or Install) the Install function of
// files calls, by import path, and the function.
func installedPackages(files []*ast.File) (map[string]bool, *ast.FuncDecl) {
	for _, f := range files {
		imports := map[string]string{}
		for _, spec := range f.Imports {
			importPath, _ := strconv.Unquote(spec.Path.Value)
			name := importPath[strings.LastIndex(importPath, "/")+1:]
			if spec.Name != nil {
				name = spec.Name.Name
			}
			imports[name] = importPath
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || fn.Name.Name != "Install" || fn.Body == nil {
				continue
			}
			installed := map[string]bool{}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && (sel.Sel.Name == "AddToScheme" || sel.Sel.Name == "Install") {
					if pkg := rootIdent(sel.X); pkg != "" && imports[pkg] != "" {
						installed[imports[pkg]] = true
					}
				}
				return true
			})
			return installed, fn
		}
	}
	return nil, nil
}

// rootIdent is the identifier an expression such as v1.SchemeBuilder starts with.
func rootIdent(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x.Name
		case *ast.SelectorExpr:
			e = x.X
		default:
			return ""
		}
	}
}
