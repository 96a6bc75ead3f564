// Package schema turns each served kind's Go type into the OpenAPI v3 schema that
// controller-gen would write into the kind's CustomResourceDefinition, with every validation
// marker users already write (+kubebuilder:validation:*, XValidation CEL rules, +listType,
// +optional, ...). sigs.k8s.io/controller-tools gives the marker semantics, so a type means
// here what it means as a CRD; k8s.io/apiextensions-apiserver checks the result the way
// kube-apiserver checks a CRD on create, so a CEL rule that does not compile or costs too
// much is an apigen generate error at the marker, not a 500 at run time.
package schema

import (
	"encoding/json"
	"fmt"
	"go/token"
	"path/filepath"

	"golang.org/x/tools/go/packages"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/controller-tools/pkg/crd"
	crdmarkers "sigs.k8s.io/controller-tools/pkg/crd/markers"
	ctloader "sigs.k8s.io/controller-tools/pkg/loader"
	ctmarkers "sigs.k8s.io/controller-tools/pkg/markers"

	"github.com/apigen-dev/apigen/generators/loader"
	"github.com/apigen-dev/apigen/generators/model"
)

// Build computes the schema of every served kind of the project and stores it in the model
// (Resource.Schema, one per version). It reads the run's one load: controller-tools parses
// nothing again and type-checks only what the schemas refer to. Problems with the markers are
// positioned errors.
func Build(load *loader.Result, p *model.Project) error {
	root := load.Root
	var pkgs []*ctloader.Package
	for _, g := range p.Groups {
		for _, v := range g.Versions {
			if len(v.Resources) == 0 {
				continue
			}
			pkg := load.Package(v.Package)
			if pkg == nil {
				return fmt.Errorf("%s is not part of the load of %s", v.Package, root)
			}
			pkgs = append(pkgs, pkg)
		}
	}
	if len(pkgs) == 0 {
		return nil
	}
	registry := &ctmarkers.Registry{}
	if err := crdmarkers.Register(registry); err != nil {
		return err
	}
	parser := &crd.Parser{
		Collector: &ctmarkers.Collector{Registry: registry},
		Checker:   &ctloader.TypeChecker{},
	}
	crd.AddKnownTypes(parser)
	byPath := map[string]*ctloader.Package{}
	for _, pkg := range pkgs {
		parser.NeedPackage(pkg)
		byPath[pkg.PkgPath] = pkg
	}

	var errs model.ErrorList
	for _, g := range p.Groups {
		for _, v := range g.Versions {
			pkg := byPath[v.Package]
			if pkg == nil {
				continue
			}
			for _, r := range v.Resources {
				ident := crd.TypeIdent{Package: pkg, Name: r.Kind}
				parser.NeedFlattenedSchemaFor(ident)
				s, ok := parser.FlattenedSchemata[ident]
				if !ok {
					continue // reported as a package error below
				}
				s = *s.DeepCopy()
				forServing(&s)
				b, err := json.Marshal(&s)
				if err != nil {
					return err
				}
				r.Schema = b
			}
		}
	}
	for _, pkg := range pkgs {
		errs = append(errs, packageErrors(root, pkg)...)
	}
	if err := check(root, p, parser, byPath); err != nil {
		list, ok := err.(model.ErrorList)
		if !ok {
			return err
		}
		errs = append(errs, list...)
	}
	return errs.Err()
}

// forServing prepares a kind's schema for the server: descriptions go (openapi-gen serves the
// documentation; the validators never read it) and the top-level metadata is what a CRD
// allows there, a bare object, as controller-gen writes it too.
func forServing(s *apiextensionsv1.JSONSchemaProps) {
	crd.TruncateDescription(s, 0)
	if _, ok := s.Properties["metadata"]; ok {
		s.Properties["metadata"] = apiextensionsv1.JSONSchemaProps{Type: "object"}
	}
}

// packageErrors are controller-tools' findings in one package (marker syntax, a marker on the
// wrong kind of field), as positioned errors. Type errors are left to apigen's own type check,
// which reports them with the model's errors.
func packageErrors(root string, pkg *ctloader.Package) model.ErrorList {
	var out model.ErrorList
	for _, e := range pkg.Errors {
		if e.Kind == packages.TypeError {
			continue
		}
		out = append(out, &model.Error{Pos: relative(root, loader.ParsePosition(e.Pos)), Msg: e.Msg})
	}
	return out
}

// relative makes a position's file name relative to the project root, as in every error of apigen's.
func relative(root string, pos token.Position) token.Position {
	if rel, err := filepath.Rel(root, pos.Filename); err == nil && filepath.IsAbs(pos.Filename) {
		pos.Filename = filepath.ToSlash(rel)
	}
	return pos
}
