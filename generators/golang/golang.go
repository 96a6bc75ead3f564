// Package golang emits the Go code apigen designs (registration, install, REST storage and the
// API server wiring) with jennifer, and copies the fixed server runtime into the project.
package golang

import (
	"bytes"
	"fmt"
	"go/token"
	"go/types"
	"path"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/model"
)

// Import paths used by the emitted code.
const (
	apiequalityPkg      = "k8s.io/apimachinery/pkg/api/equality"
	conversionPkg       = "k8s.io/apimachinery/pkg/conversion"
	fieldPkg            = "k8s.io/apimachinery/pkg/util/validation/field"
	fieldsPkg           = "k8s.io/apimachinery/pkg/fields"
	labelsPkg           = "k8s.io/apimachinery/pkg/labels"
	metaPkg             = "k8s.io/apimachinery/pkg/api/meta"
	tablePkg            = "k8s.io/apimachinery/pkg/api/meta/table"
	metav1Pkg           = "k8s.io/apimachinery/pkg/apis/meta/v1"
	runtimePkg          = "k8s.io/apimachinery/pkg/runtime"
	schemaPkg           = "k8s.io/apimachinery/pkg/runtime/schema"
	serializerPkg       = "k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntimePkg      = "k8s.io/apimachinery/pkg/util/runtime"
	genericPkg          = "k8s.io/apiserver/pkg/registry/generic"
	genericregistryPkg  = "k8s.io/apiserver/pkg/registry/generic/registry"
	restPkg             = "k8s.io/apiserver/pkg/registry/rest"
	genericapiserverPkg = "k8s.io/apiserver/pkg/server"
	storagePkg          = "k8s.io/apiserver/pkg/storage"
	namesPkg            = "k8s.io/apiserver/pkg/storage/names"
	fieldpathPkg        = "sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// aliases are the import names Kubernetes code conventionally uses, so generated code reads
// like hand-written code.
var aliases = map[string]string{
	apiequalityPkg:      "apiequality",
	apiextensionsV1Pkg:  "apiextensionsv1",
	metav1Pkg:           "metav1",
	utilruntimePkg:      "utilruntime",
	genericregistryPkg:  "genericregistry",
	genericapiserverPkg: "genericapiserver",
}

// Paths of generated packages inside a project.
const (
	apiserverDir = "pkg/apiserver"
	openapiDir   = "pkg/generated/openapi"
	serverDir    = "pkg/cmd/server"
)

// packageNames are the packages whose name is the last element of their path; telling jennifer
// keeps it from writing a redundant alias for them.
var packageNames = []string{
	"context", "fmt", conversionPkg, metaPkg, tablePkg, fieldPkg, fieldsPkg, labelsPkg, runtimePkg, schemaPkg, serializerPkg,
	genericPkg, restPkg, storagePkg, namesPkg, fieldpathPkg,
}

func newFile(importPath, name string) *jen.File {
	f := jen.NewFilePathName(importPath, name)
	for p, alias := range aliases {
		f.ImportAlias(p, alias)
	}
	for _, p := range packageNames {
		f.ImportName(p, path.Base(p))
	}
	return f
}

// add renders a jennifer file behind the project's Go header and adds it to the output.
func add(ctx *engine.Context, out *engine.Output, name string, f *jen.File) error {
	var body bytes.Buffer
	if err := f.Render(&body); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	src, err := engine.FormatGo(name, append(append([]byte{}, ctx.GoHeader...), body.Bytes()...))
	if err != nil {
		return err
	}
	return out.Add(name, src)
}

// registryPackage is the package name of a resource's REST storage: its singular name, made
// a valid identifier.
func registryPackage(r *model.Resource) string {
	name := strings.ReplaceAll(r.Of.Singular, "-", "")
	if token.IsKeyword(name) {
		name += "registry"
	}
	return name
}

// registryDir is where a resource's REST storage lives: pkg/registry/<group>/<singular>.
func registryDir(g *model.Group, r *model.Resource) string {
	return path.Join("pkg/registry", g.Package, registryPackage(r))
}

// goPackageName is the package name of a version package: its directory name, which
// Kubernetes convention makes the version.
func goPackageName(v *model.Version) string { return path.Base(v.Dir) }

// lowerFirst turns "Flunder" into "flunder".
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// localName is the name of a local variable holding an object of a kind: "flunder", or
// "fieldObj" where the plain name would shadow a package, a builtin or another local that
// generated code uses.
func localName(kind string) string {
	name := lowerFirst(kind)
	if token.IsKeyword(name) || types.Universe.Lookup(name) != nil || reservedNames[name] {
		return name + "Obj"
	}
	return name
}

// reservedNames are the import names and local variables of generated code.
var reservedNames = map[string]bool{
	"allErrs": true, "ctx": true, "err": true, "field": true, "fields": true, "fmt": true, "labels": true,
	"managedFields": true, "names": true, "obj": true, "ok": true, "old": true, "optsGetter": true, "options": true,
	"rest": true, "runtime": true, "s": true, "scheme": true, "schema": true, "selectable": true, "status": true, "statusStore": true,
	"storage": true, "store": true, "strategy": true, "context": true, "generic": true, "fieldpath": true, "apiGroupInfo": true,
}

// sanitize keeps the letters and digits of a name, for identifiers built from paths.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
}

// field is one key of a struct literal.
type field struct {
	name  string
	value jen.Code
}

// structLit renders a multi-line struct literal with its fields in the given order (jen.Dict
// sorts them), the order a person would write them in. A field without a value is left out.
func structLit(fields ...field) *jen.Statement {
	return jen.ValuesFunc(func(g *jen.Group) {
		for _, f := range fields {
			if f.value == nil {
				continue
			}
			g.Line().Id(f.name).Op(":").Add(f.value)
		}
		g.Line()
	})
}

// RegistryDir and RegistryPackage are where a resource's REST storage lives and its package
// name, for the user-owned files that share the package (custom subresources).
func RegistryDir(g *model.Group, r *model.Resource) string { return registryDir(g, r) }

func RegistryPackage(r *model.Resource) string { return registryPackage(r) }
