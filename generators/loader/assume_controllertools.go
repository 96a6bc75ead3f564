package loader

// What the loader assumes of sigs.k8s.io/controller-tools (pkg/loader, pkg/crd), the version
// go.mod pins:
//
//   - its TypeChecker type-checks a package again, into a second types.Package and a full
//     types.Info, only while the package record's TypesInfo is nil, and walks on into every
//     package the checked package's type declarations name; a record with syntax and
//     TypesInfo (even empty ones) stops the walk there (sealStd);
//   - of a package's TypesInfo it reads only Types (TypeOf a type expression) and Defs (the
//     objects of the package's own declarations), so the load keeps no more (compactInfo);
//   - looking a type up in a package without syntax, it records one error in the package
//     ("unknown type") and nothing else, which is how a run notices that the schemas needed
//     a sealed package (lookedUpInSealed, Result.StdTouched).
//
// Should any of this change, the schemas could silently differ from those of a load from
// source: TestAssumeControllerToolsSealedStd fails then (it computes a schema over sealed
// packages and looks a type up in one), and so do the goldens, whose OpenAPI schemas
// controller-tools computes from the compacted TypesInfo.

import (
	"go/ast"
	"go/types"
	"slices"

	"golang.org/x/tools/go/packages"
)

// sealStd gives controller-tools' records of the standard library's packages the load read
// from export data, but for those the API types refer to, no syntax and an empty TypesInfo
// beside their types: controller-tools' TypeChecker walks every package the type declarations
// of a package it checks name, parses it (all of runtime, for wardle) and type-checks it
// again, only to go on walking; a record with syntax and type information stops the walk
// there, and its Types stay the export data's, which the packages that import it were
// checked against. A schema describes only types the API types reach through fields,
// elements, keys and underlying types (the packages of referenced, which gengo processes
// fully and so come from source: the seed's, or in the load done again, see StdCache);
// should controller-tools all the same look a type up in a sealed package, it finds no
// declaration and records an error in the package, which StdTouched reports, so that the run
// is done again from source.
func (r *Result) sealStd(referenced []string) {
	if r.std == nil || !r.fed {
		return
	}
	for path := range r.std.fromExport {
		if slices.Contains(referenced, path) {
			continue
		}
		p := r.std.std[path]
		if p == nil || len(p.Errors) > 0 {
			continue
		}
		if r.sealed == nil {
			r.sealed = map[string]*packages.Package{}
		}
		p.Syntax, p.TypesInfo = []*ast.File{}, &types.Info{}
		r.sealed[path] = p
	}
}

// compactInfo leaves in info what controller-tools asks of it: the types of type
// expressions (TypeOf a field's, an element's or a key's type; type expressions, identifiers
// included, are all recorded in Types, so TypeOf needs no Uses) and the objects of the
// package's own declarations (Defs of a type's or a constant's name). The checker records
// every expression and every definition of the package's declarations (and of the API
// packages' function bodies), and the load keeps the information of every package until the
// schemas are built.
func compactInfo(info *types.Info, scope *types.Scope) {
	info.Types = filter(info.Types, func(_ ast.Expr, tv types.TypeAndValue) bool { return tv.IsType() })
	info.Defs = filter(info.Defs, func(_ *ast.Ident, obj types.Object) bool { return obj != nil && obj.Parent() == scope })
}

// filter returns a map of the entries of m that keep reports true for, sized to hold them.
func filter[K comparable, V any](m map[K]V, keep func(K, V) bool) map[K]V {
	n := 0
	for k, v := range m {
		if keep(k, v) {
			n++
		}
	}
	out := make(map[K]V, n)
	for k, v := range m {
		if keep(k, v) {
			out[k] = v
		}
	}
	return out
}

// lookedUpInSealed reports whether controller-tools looked a type up in a sealed package: the
// only error it records in a package without syntax is a type it did not find there.
func lookedUpInSealed(p *packages.Package) bool { return len(p.Errors) > 0 }
