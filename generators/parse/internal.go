package parse

import (
	"fmt"
	"go/ast"
	"go/token"
	"path"
	"reflect"
	"slices"
	"strings"

	gengotypes "k8s.io/gengo/v2/types"

	"github.com/apigen-dev/apigen/generators/model"
)

// groupPackage is pkg/apis/<group> or pkg/apis/<group>/install, read before the model's
// groups are complete and settled by settleGroupPackages.
type groupPackage struct {
	pkgPath string
	dir     string
	files   []*ast.File
	gpkg    *gengotypes.Package
}

// parseGroupPackage records the package of a group's directory (pkg/apis/<group>: internal
// types, as in k8s.io/sample-apiserver) or of its install directory, to settle once every
// version is known.
func (p *parser_) parseGroupPackage(pkgPath, dir string, parts []string, gpkg *gengotypes.Package) {
	files := p.load.Files(pkgPath)
	if len(files) == 0 {
		return
	}
	gp := &groupPackage{pkgPath: pkgPath, dir: dir, files: files, gpkg: gpkg}
	if len(parts) == 2 {
		p.installs[parts[0]] = gp
	} else {
		p.internals[parts[0]] = gp
	}
}

// settleGroupPackages makes a group's own internal package its hub when it declares the
// group's kinds, and notes a user-owned install package.
func (p *parser_) settleGroupPackages(g *model.Group) {
	if in := p.installs[g.Package]; in != nil && in.gpkg.Functions["Install"] != nil {
		g.OwnInstall = true
	}
	gp := p.internals[g.Package]
	if gp == nil {
		return
	}
	internal := &model.Version{Name: "__internal", Package: gp.pkgPath, Dir: gp.dir, Pos: p.pos(gp.files[0].Package)}
	internal.OwnRegistration = registers(gp.gpkg)
	var missing []string
	for _, h := range g.StoredKinds() {
		st := structType(gp.files, h.Resource.Kind)
		if st == nil {
			missing = append(missing, h.Resource.Kind)
			continue
		}
		r := *h.Resource
		r.Storage = false
		r.Conversion, r.ConversionPos = "", token.Position{}
		readShape(&r, st)
		r.Hooks = p.hooks(gp.gpkg.Types[r.Kind], &r)
		internal.Resources = append(internal.Resources, &r)
	}
	switch {
	case len(internal.Resources) == 0:
		return // a package of helpers, not internal types
	case len(missing) > 0:
		p.errs.Add(internal.Pos, "package %s declares internal types for group %s but not %s; the internal version needs every kind of the group",
			gp.pkgPath, g.Name, strings.Join(missing, ", "))
		return
	}
	g.Internal = internal
}

// structType finds a struct type declaration in files.
func structType(files []*ast.File, name string) *ast.StructType {
	for _, f := range files {
		for _, d := range f.Decls {
			decl, ok := d.(*ast.GenDecl)
			if !ok || decl.Tok != token.TYPE {
				continue
			}
			for _, s := range decl.Specs {
				if spec := s.(*ast.TypeSpec); spec.Name.Name == name {
					st, _ := spec.Type.(*ast.StructType)
					return st
				}
			}
		}
	}
	return nil
}

// registers reports whether a package registers its own types, as Kubernetes' register.go
// files do: it declares AddToScheme.
func registers(gpkg *gengotypes.Package) bool {
	return gpkg.Variables["AddToScheme"] != nil || gpkg.Functions["AddToScheme"] != nil
}

// controllerRuntimeScheme is the package of controller-runtime's scheme.Builder, which
// kubebuilder's groupversion_info.go registers a version's kinds with.
const controllerRuntimeScheme = "sigs.k8s.io/controller-runtime/pkg/scheme"

// controllerRuntimeBuilder reports whether a package's SchemeBuilder is controller-runtime's
// scheme.Builder, as in kubebuilder's groupversion_info.go.
func controllerRuntimeBuilder(gpkg *gengotypes.Package) bool {
	v := gpkg.Variables["SchemeBuilder"]
	if v == nil || v.Underlying == nil {
		return false
	}
	t := v.Underlying
	if t.Kind == gengotypes.Pointer {
		t = t.Elem
	}
	return t.Name == gengotypes.Name{Package: controllerRuntimeScheme, Name: "Builder"}
}

// checkGeneratedRegistration reports what keeps apigen from generating a version's
// registration: the generated conversions register with localSchemeBuilder, a name the
// package may only declare together with its own registration (AddToScheme).
func (p *parser_) checkGeneratedRegistration(v *model.Version) {
	if at, ok := v.DeclPos["localSchemeBuilder"]; ok {
		p.errs.Add(at, "package %s declares localSchemeBuilder but no AddToScheme; apigen's registration declares both, so declare AddToScheme = localSchemeBuilder.AddToScheme to register the package yourself, or rename localSchemeBuilder",
			path.Base(v.Package))
	}
}

// checkOwnRegistration reports what a version package with its own register.go lacks for the
// generated files: localSchemeBuilder, which the generated conversions register with, and a
// call of RegisterDefaults when the package has defaults, which would otherwise never apply.
func (p *parser_) checkOwnRegistration(v *model.Version, files []*ast.File, gpkg *gengotypes.Package) {
	at := v.DeclPos["SchemeGroupVersion"]
	if !at.IsValid() {
		at = v.Pos
	}
	if gpkg.Variables["localSchemeBuilder"] == nil {
		p.noLocalBuilder[v] = at // an error only if conversions are generated into it
	}
	for _, r := range v.Resources {
		if r.Hooks.Default {
			p.errs.Add(at, "package %s registers its types itself, so apigen cannot register %s's Default method; register it yourself (scheme.AddTypeDefaultingFunc(&%s{}, ...) in the function your SchemeBuilder runs) or remove the package's registration and let apigen generate it",
				path.Base(v.Package), r.Kind, r.Kind)
		}
	}
	defaulted := len(v.Defaults) > 0
	for name := range gpkg.Functions {
		defaulted = defaulted || strings.HasPrefix(name, "SetDefaults_")
	}
	// k8s.io/api's packages leave their defaults to whoever installs them (k8s.io/kubernetes'
	// internal packages); so does the generated install package, unless it is the user's.
	v.InstallRegistersDefaults = defaulted && !mentions(files, "RegisterDefaults")
}

// checkLocalSchemeBuilders reports each version that registers its types itself without a
// localSchemeBuilder although apigen generates conversions into it, which register with it
// (conversion-gen's, or those calling the kinds' own ConvertTo and ConvertFrom). A version
// that holds no conversions, such as the only version of a group (every k8s.io/api package
// copied alone), needs none.
func (p *parser_) checkLocalSchemeBuilders() {
	if len(p.noLocalBuilder) == 0 {
		return
	}
	peers := p.proj.ConversionPeers()
	for _, g := range p.proj.Groups {
		for _, v := range g.Versions {
			at, missing := p.noLocalBuilder[v]
			if !missing {
				continue
			}
			_, converts := peers[v.Package]
			for _, r := range v.Resources {
				converts = converts || r.ConvertsByMethods()
			}
			if converts {
				p.errs.Add(at, "package %s registers its types itself but declares no localSchemeBuilder, which the conversions apigen generates into it register with; declare `localSchemeBuilder = &SchemeBuilder` or remove its registration and let apigen generate it",
					path.Base(v.Package))
			}
		}
	}
}

// checkInstalledDefaults reports a version whose defaults only an install package would
// register when the group's install package is the user's.
func (p *parser_) checkInstalledDefaults(g *model.Group) {
	if !g.OwnInstall {
		return
	}
	for _, v := range g.Versions {
		if !v.InstallRegistersDefaults {
			continue
		}
		at := v.DeclPos["SchemeGroupVersion"]
		if !at.IsValid() {
			at = v.Pos
		}
		p.errs.Add(at, "package %s registers its types itself and has defaults, but neither it nor your install package calls RegisterDefaults, so they would never apply; register them, as in localSchemeBuilder.Register(addKnownTypes, RegisterDefaults)",
			path.Base(v.Package))
	}
}

// mentions reports whether any of files uses the identifier name.
func mentions(files []*ast.File, name string) bool {
	found := false
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && id.Name == name {
				found = true
			}
			return !found
		})
	}
	return found
}

// selectableField resolves a selectable field's JSON path on a kind's type to its Go fields.
// As for a CRD, the value must be a string, an integer or a boolean.
func selectableField(t *gengotypes.Type, jsonPath string) (model.SelectableField, error) {
	f := model.SelectableField{JSONPath: jsonPath}
	steps, leaf, err := goFieldPath(t, jsonPath)
	if err != nil {
		return f, err
	}
	f.Go = steps
	if f.Type = valueType(leaf); f.Type == "" {
		return f, fmt.Errorf("a selectable field is a string, an integer or a boolean, not %s", typeName(leaf))
	}
	return f, nil
}

// goFieldPath resolves a JSON path (.spec.replicas) on a kind's type to the Go fields on the
// way (pointers marked) and the type of the value, a pointer's element for a pointer field.
func goFieldPath(t *gengotypes.Type, jsonPath string) ([]model.FieldStep, *gengotypes.Type, error) {
	if t == nil {
		return nil, nil, fmt.Errorf("the kind's type is not in the load")
	}
	var steps []model.FieldStep
	parent := "the kind"
	for _, name := range strings.Split(strings.TrimPrefix(jsonPath, "."), ".") {
		t = underlying(t)
		if t.Kind != gengotypes.Struct {
			return nil, nil, fmt.Errorf("%s is not an object, so it has no field %q", parent, name)
		}
		parent = name
		m, ok := memberByJSON(t, name)
		if !ok {
			return nil, nil, fmt.Errorf("%s has no field %q", t.Name.Name, name)
		}
		step := model.FieldStep{Name: m.Name}
		next := m.Type
		if next.Kind == gengotypes.Pointer {
			step.Pointer, next = true, next.Elem
		}
		steps = append(steps, step)
		t = next
	}
	return steps, t, nil
}

// valueType is the JSON type of a Go value that is a string, an integer or a boolean
// ("string", "integer", "boolean"), or "" for anything else.
func valueType(t *gengotypes.Type) string {
	switch leaf := underlying(t); {
	case leaf.Kind != gengotypes.Builtin:
		return ""
	case leaf.Name.Name == "string":
		return "string"
	case leaf.Name.Name == "bool":
		return "boolean"
	case strings.HasPrefix(leaf.Name.Name, "int") || strings.HasPrefix(leaf.Name.Name, "uint"):
		return "integer"
	}
	return ""
}

// typeName names a type in an error: the declared name, or the builtin it is made of.
func typeName(t *gengotypes.Type) string {
	if leaf := underlying(t); leaf.Kind == gengotypes.Builtin {
		return leaf.Name.Name
	}
	return t.Name.Name
}

// underlying follows named types (type Color string) to what they are made of.
func underlying(t *gengotypes.Type) *gengotypes.Type {
	for t.Kind == gengotypes.Alias && t.Underlying != nil {
		t = t.Underlying
	}
	return t
}

// memberByJSON finds a struct member by its JSON name, looking into embedded structs whose
// fields are inlined (metav1.TypeMeta's kind and apiVersion).
func memberByJSON(t *gengotypes.Type, name string) (gengotypes.Member, bool) {
	for _, m := range t.Members {
		jsonName, _, _ := strings.Cut(reflect.StructTag(m.Tags).Get("json"), ",")
		if jsonName == name {
			return m, true
		}
		if inner := underlying(derefPointer(m.Type)); m.Embedded && jsonName == "" && inner.Kind == gengotypes.Struct {
			if found, ok := memberByJSON(inner, name); ok {
				return found, true
			}
		}
	}
	return gengotypes.Member{}, false
}

// checkSelectableFields wants every selectable field of a version to be selectable in the
// kind's hub too: the store filters the objects it holds, hub objects, whatever version a
// request names.
func (p *parser_) checkSelectableFields(g *model.Group) {
	for _, v := range g.Versions {
		for _, r := range v.Resources {
			if len(r.SelectableFields) == 0 {
				continue
			}
			hubVersion, hub := g.Hub(r.Kind)
			switch {
			case hub == nil:
			case hubVersion == g.Internal:
				p.errs.Add(r.SelectableFields[0].Pos, "selectable fields of %s are not supported yet with internal types of your own (%s)", r.Kind, g.Internal.Dir)
			case v.OwnRegistration:
				p.errs.Add(r.SelectableFields[0].Pos, "selectable fields of %s need apigen's registration of package %s, which registers its types itself", r.Kind, path.Base(v.Package))
			case hubVersion != v:
				for _, f := range r.SelectableFields {
					if !slices.ContainsFunc(hub.SelectableFields, func(h model.SelectableField) bool { return h.JSONPath == f.JSONPath }) {
						p.errs.Add(f.Pos, "selectable field %s of %s in %s is not selectable in %s, the version %s is stored in; the server filters stored objects, so mark it there too (the field must have the same path)",
							f.JSONPath, r.Kind, v.Name, hubVersion.Name, r.Kind)
					}
				}
			}
		}
	}
}
