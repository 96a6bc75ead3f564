// Package parse turns one load of a project into the model: it reads the markers and the
// shape of the API types. It is the only package that looks at Go syntax.
package parse

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/token"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/version"
	gengotypes "k8s.io/gengo/v2/types"

	"github.com/apigen-dev/apigen/generators/loader"
	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/model"
)

// Project builds the model of a loaded project. All problems are returned at once as a
// model.ErrorList with positions relative to the project root. The model is not validated
// yet: the caller validates it (model.Project.Validate) once everything that fills it has run
// (pipeline's generate, after the schemas and the upstream generators).
func Project(load *loader.Result) (*model.Project, error) {
	p := &parser_{
		load:           load,
		reg:            markers.Apigen(),
		strategyHooks:  map[*model.Resource][]hookAt{},
		internals:      map[string]*groupPackage{},
		installs:       map[string]*groupPackage{},
		fuzzers:        map[string]string{},
		noEffects:      map[string]*noEffectUse{},
		fieldMarks:     map[string]map[token.Pos]markedField{},
		noLocalBuilder: map[*model.Version]noLocalBuilder{},
		fset:           load.Fset,
		proj:           model.NewProject(load.Module),
	}
	groups := map[string]*model.Group{}
	for _, pkgPath := range load.APIPackages {
		p.parsePackage(pkgPath, groups)
	}
	for dir, g := range groups {
		g.Fuzzer = p.fuzzers[dir]
	}
	for _, g := range p.proj.Groups {
		p.leaveOutUninstalled(g)
		p.checkSkipped(g)
		p.checkSameNames(g)
		g.Kinds = kindsOf(g)
		p.checkCustomStorage(g)
		settleKinds(g)
		p.checkNamesApplied(g)
		defaultDeprecations(g)
		p.settleGroupPackages(g)
		g.FillsRawJSON = p.fillsRawJSON(g)
		p.checkStrategyHooks(g)
		p.checkMethodConversions(g)
		p.checkSelectableFields(g)
		p.checkScale(g)
		p.checkCustomSubresources(g)
	}
	p.checkLocalSchemeBuilders()
	p.hiddenFieldWarnings()
	// A run that fails reports its warnings too, among the errors by position: a warning may
	// well explain an error (a constraint dropped, a marker without effect).
	if err := p.errs.Err(); err != nil {
		return nil, append(p.errs, p.warnings()...).Err()
	}
	p.proj.Warnings = p.warnings()
	for _, g := range p.proj.Groups {
		structDocs(p.load.Universe, g)
	}
	return p.proj, nil
}

type parser_ struct {
	// internals and installs are the packages of pkg/apis/<group> and
	// pkg/apis/<group>/install, by group directory.
	internals, installs map[string]*groupPackage
	// fuzzers are the import paths of the groups' fuzzer packages, by group directory.
	fuzzers map[string]string
	// noEffects are the markers accepted without effect, by name as written.
	noEffects map[string]*noEffectUse
	// fieldMarks are the markers on struct fields, by package and field position, each
	// package's read once (fieldMarkersOf).
	fieldMarks map[string]map[token.Pos]markedField
	// noLocalBuilder are the versions that register their types themselves without a
	// localSchemeBuilder, with the position to report if they hold generated conversions.
	noLocalBuilder map[*model.Version]noLocalBuilder
	// strategyHooks are the hooks other than Default that each resource's type has.
	strategyHooks map[*model.Resource][]hookAt
	// warned are the warnings markers reported through their kind (Kind.Warn).
	warned model.ErrorList
	// hidings are the fields encoding/json never encodes under the versions' inlined structs,
	// each in every struct it is hidden in (hiddenFieldWarnings).
	hidings []hidingIn
	load    *loader.Result
	reg     *markers.Registry
	fset    *token.FileSet
	proj    *model.Project
	errs    model.ErrorList
}

// pos converts a token.Pos into a position relative to the project root, so that the model
// and its errors are the same wherever the project lives.
func (p *parser_) pos(pos token.Pos) token.Position {
	position := p.fset.Position(pos)
	if rel, err := filepath.Rel(p.load.Root, position.Filename); err == nil {
		position.Filename = filepath.ToSlash(rel)
	}
	return position
}

// parsePackage reads one API package. Version packages are <api dir>/<group>/<version>
// (<api dir>/<version> in kubebuilder's single-group layout); pkg/apis itself is the project's
// package; anything else there (helpers) is not an API version and is left alone.
func (p *parser_) parsePackage(pkgPath string, groups map[string]*model.Group) {
	gpkg := p.load.Universe.Package(pkgPath)
	rel, err := filepath.Rel(p.load.Root, gpkg.Dir)
	if err != nil {
		return
	}
	rel = filepath.ToSlash(rel)
	if rel == loader.DefaultAPIDir {
		p.parseProjectPackage(pkgPath)
		return
	}
	layout := p.load.Layout
	inside, ok := strings.CutPrefix(rel, layout.Dir+"/")
	if !ok {
		return
	}
	parts := strings.Split(inside, "/")
	if layout.SingleGroup {
		// One group, no group directory: the group is named by its versions' +groupName.
		parts = append([]string{""}, parts...)
	} else if len(parts) == 1 || (len(parts) == 2 && parts[1] == "install") {
		p.parseGroupPackage(pkgPath, rel, parts, gpkg)
		return
	}
	if len(parts) == 2 && parts[1] == "fuzzer" {
		// Kubernetes' layout: pkg/apis/<group>/fuzzer declares Funcs for the round-trip test.
		if gpkg.Variables["Funcs"] != nil || gpkg.Functions["Funcs"] != nil {
			p.fuzzers[parts[0]] = pkgPath
		}
		return
	}
	if len(parts) != 2 {
		return
	}
	p.parseVersion(pkgPath, rel, parts[0], parts[1], gpkg, groups)
}

// parseVersion reads the version package dir of the group in the directory groupDir ("" when
// the layout has a single group).
func (p *parser_) parseVersion(pkgPath, dir, groupDir, versionName string, gpkg *gengotypes.Package, groups map[string]*model.Group) {
	files := p.load.Files(pkgPath)
	if len(files) == 0 {
		return
	}
	// A version's position is its package clause in the file with the package's doc comment
	// (doc.go, where its tags are), or in its first file.
	docFile := files[0]
	if i := slices.IndexFunc(files, func(f *ast.File) bool { return f.Doc != nil }); i >= 0 {
		docFile = files[i]
	}
	version := &model.Version{Name: versionName, Package: pkgPath, Dir: dir, Pos: p.pos(docFile.Package)}
	named := p.packageGroup(files)
	groupName, groupPos := named.Name, named.Pos
	version.DeclPos = p.declarations(files)
	version.Resources = p.resources(files, gpkg, version)
	version.HandConversions = p.handConversions(files)
	if version.HandConversions != nil {
		version.MethodReads = methodReads(files)
	}
	version.HiddenFields = append(p.hiddenFields(gpkg, version.DeclPos), nullPointers(gpkg, version.DeclPos)...)
	slices.SortStableFunc(version.HiddenFields, func(a, b model.HiddenField) int { return strings.Compare(a.Type, b.Type) })
	if groupName == "" {
		groupName, groupPos = p.registeredGroup(files, gpkg, version.DeclPos)
	}
	switch {
	case controllerRuntimeBuilder(gpkg):
		version.ControllerRuntime = true
		p.leaveOutUnregistered(version, files)
	case registers(gpkg):
		version.OwnRegistration = true
		p.checkOwnRegistration(version, files, gpkg)
		p.leaveOutUnregistered(version, files)
	case p.keptRegistration(gpkg.Dir) != nil:
		// register-gen's file, left out of the load by its !ignore_autogenerated tag (as
		// sigs.k8s.io/gateway-api ships it): the package registers itself with it, as with a
		// register.go of its own, and apigen keeps it, as it keeps controller-gen's deepcopy.
		version.OwnRegistration = true
		p.checkOwnRegistration(version, files, gpkg)
		if p.keptRegistration(gpkg.Dir)["localSchemeBuilder"] {
			delete(p.noLocalBuilder, version)
		}
	default:
		p.checkGeneratedRegistration(version)
	}
	p.checkClientNames(version, gpkg)
	short := groupDir
	if short == "" {
		short, _, _ = strings.Cut(groupName, ".")
	}
	if groupName == "" {
		if len(version.Resources) > 0 {
			p.errs.Add(version.Pos, "package %s has resources but no +groupName; add \"// +groupName=%s.<your domain>\" to its doc.go", pkgPath, cmp.Or(groupDir, "<group>"))
		}
		return
	}
	g, ok := groups[groupDir]
	if !ok {
		g = &model.Group{Name: groupName, Package: short, Pos: groupPos}
		groups[groupDir] = g
		p.proj.Groups = append(p.proj.Groups, g)
	} else if g.Name != groupName {
		p.errs.Add(groupPos, "+groupName=%s conflicts with +groupName=%s at %s; every version of %s must name the same group", groupName, g.Name, g.Pos, path.Dir(dir))
	}
	g.Versions = append(g.Versions, version)
}

// parseProjectPackage applies the project-level markers of pkg/apis (its doc.go, written by
// apigen init) to the project, each once.
func (p *parser_) parseProjectPackage(pkgPath string) {
	once := map[string]*markers.Marker{}
	for _, m := range p.packageMarkers(p.load.Files(pkgPath)) {
		effect, ok := m.Args.(markers.ProjectEffect)
		if !ok {
			continue
		}
		if first := once[m.Def.Name]; first != nil {
			p.errs.Add(m.Pos, "+%s is already set at %s; give every argument in one marker", m.Name, first.Pos)
			continue
		}
		once[m.Def.Name] = m
		if err := effect.ApplyToProject(m, p.proj); err != nil {
			p.errs.Add(m.Pos, "%v", err)
		}
	}
}

// checkSameNames wants a kind to have the same resource path and scope in every version of the
// group that declares it, as a CRD has one spec.names and spec.scope for all its versions: one
// kind with two paths or scopes could not share one storage. It reads what each version
// declares (Resource.Declared); the first version to declare the kind is the one the others
// are held to.
func (p *parser_) checkSameNames(g *model.Group) {
	type seen struct {
		r *model.Resource
		v *model.Version
	}
	kinds := map[string]seen{}
	for _, v := range g.Versions {
		for _, r := range v.Resources {
			prev, ok := kinds[r.Kind]
			if !ok {
				kinds[r.Kind] = seen{r, v}
				continue
			}
			if prev.r.Declared.Plural != r.Declared.Plural {
				p.errs.Add(r.Pos, "%s: kind %s has resource path %q here but %q in %s (%s); a kind must have the same path in every version of group %s",
					r.Marker, r.Kind, r.Declared.Plural, prev.r.Declared.Plural, prev.v.Name, prev.r.Pos, g.Name)
			}
			if prev.r.Declared.Scope != r.Declared.Scope {
				p.errs.Add(r.Pos, "%s: kind %s has scope %s here but %s in %s (%s); a kind must have the same scope in every version of group %s",
					r.Marker, r.Kind, r.Declared.Scope, prev.r.Declared.Scope, prev.v.Name, prev.r.Pos, g.Name)
			}
		}
	}
}

// kindsOf returns the kinds of a group, sorted by name, each with the versions that serve it
// and its storage version: the version that marks it +apigen:storageversion, the only version
// that declares it, or, when several declare it, none of them marked, the most preferred of
// them if every declaration allows it (Resource.BuiltInStyle), as kube-apiserver stores its
// built-in types. A kind whose versions settle none (or mark several) has none, which
// validation reports. settleKinds gives them the rest.
func kindsOf(g *model.Group) []*model.Kind {
	byName := map[string]*model.Kind{}
	var kinds []*model.Kind
	for _, v := range g.ByPriority() {
		for _, r := range v.Resources {
			k := byName[r.Kind]
			if k == nil {
				k = &model.Kind{Name: r.Kind}
				byName[r.Kind] = k
				kinds = append(kinds, k)
			}
			k.Versions = append(k.Versions, v)
		}
	}
	for _, k := range kinds {
		rs := k.Resources()
		var marked []*model.Version
		for i, r := range rs {
			if r.StorageVersionMarked {
				marked = append(marked, k.Versions[i])
			}
		}
		builtIn := !slices.ContainsFunc(rs, func(r *model.Resource) bool { return !r.BuiltInStyle })
		switch {
		case len(marked) == 1:
			k.Storage = marked[0]
		case len(marked) == 0 && (len(rs) == 1 || builtIn):
			k.Storage = k.Versions[0]
		}
	}
	slices.SortFunc(kinds, func(a, b *model.Kind) int { return strings.Compare(a.Name, b.Name) })
	return kinds
}

// settleKinds gives each kind of the group what its storage version declares of it (its most
// preferred version's when it has none): its names, list kind, scope and custom storage, which
// its storage serves; and makes it the kind of each of its versions' resources (Resource.Of).
// checkSameNames and checkCustomStorage hold the versions' declarations to one.
func settleKinds(g *model.Group) {
	for _, k := range g.Kinds {
		settled := k.Versions[0].Kind(k.Name)
		if _, stored := k.Stored(); stored != nil {
			settled = stored
		}
		declared := settled.Declared
		k.ListKind = settled.ListKind
		k.Plural, k.Singular, k.Scope = declared.Plural, declared.Singular, declared.Scope
		k.ShortNames, k.Categories = declared.ShortNames, declared.Categories
		k.CustomStorage = declared.CustomStorage
		for _, r := range k.Resources() {
			r.Of = k
		}
	}
}

// checkNamesApplied warns about each short name and category that a version other than a
// kind's storage version declares and the kind is not served with. A CRD has one spec.names
// for all its versions, and kube-apiserver serves a built-in resource from one REST storage,
// whose ShortNames and Categories are the same in every version's discovery; settleKinds
// gives the kind its storage version's. Neither takes a union over versions: controller-gen
// keeps whichever version's marker it applies last, and kube-apiserver has no per-version
// names to unite. So a name only another version declares is not applied, and said so, at
// the marker that declares it.
func (p *parser_) checkNamesApplied(g *model.Group) {
	for _, k := range g.Kinds {
		storage, stored := k.Stored()
		if stored == nil {
			continue // validation reports a kind without a storage version
		}
		for i, r := range k.Resources() {
			if r == stored {
				continue
			}
			for _, c := range []struct {
				what, whats     string
				declared, using []string
			}{
				{"short name", "short names", r.Declared.ShortNames, k.ShortNames},
				{"category", "categories", r.Declared.Categories, k.Categories},
			} {
				var ignored []string
				for _, name := range c.declared {
					if !slices.Contains(c.using, name) {
						ignored = append(ignored, name)
					}
				}
				if len(ignored) == 0 {
					continue
				}
				using := "none"
				if len(c.using) > 0 {
					using = strings.Join(c.using, ", ")
				}
				what, it, is := c.what, "it", "is"
				if len(ignored) > 1 {
					what, it, is = c.whats, "them", "are"
				}
				p.Warn(r.Pos, "%s in %s: %s %s of %s %s not applied: %s is served in every version with the %s of its storage version %s (%s), "+
					"as a CRD has one spec.names for all its versions; declare %s in %s's marker (%s) or remove %s here",
					r.Marker, k.Versions[i].Name, what, strings.Join(ignored, ", "), k.Name, is, k.Name, c.whats, storage.Name, using, it, storage.Name, stored.Pos, it)
			}
		}
	}
}

// checkSkipped warns about each kind that every version of the group declaring it leaves out
// (Version.Skipped): it is served in no version, as no version of its CRD would serve it.
func (p *parser_) checkSkipped(g *model.Group) {
	served := map[string]bool{}
	skipped := map[string][]model.SkippedKind{}
	var kinds []string
	for _, v := range g.ByPriority() {
		for _, r := range v.Resources {
			served[r.Kind] = true
		}
		for _, s := range v.Skipped {
			if skipped[s.Kind] == nil {
				kinds = append(kinds, s.Kind)
			}
			skipped[s.Kind] = append(skipped[s.Kind], s)
		}
	}
	for _, kind := range kinds {
		ss := skipped[kind]
		if served[kind] || ss[0].Marker == unregisteredMarker {
			continue // leaveOutUnregistered warned
		}
		var others []string
		for _, s := range ss[1:] {
			others = append(others, s.Pos.String())
		}
		also := ""
		if len(others) > 0 {
			also = " (and at " + strings.Join(others, ", ") + ")"
		}
		p.Warn(ss[0].Pos, "%s leaves %s out of every version of %s that declares it%s, so %s is not served at all, as "+
			"no version of its CRD would serve it; remove the marker from a version to serve it there", ss[0].Marker, kind, g.Name, also, kind)
	}
}

// declarations maps the package-level types, functions, variables and constants of a
// package's files to their positions.
func (p *parser_) declarations(files []*ast.File) map[string]token.Position {
	out := map[string]token.Position{}
	for _, f := range files {
		for _, id := range loader.Declared(f, false) {
			out[id.Name] = p.pos(id.Pos())
		}
	}
	return out
}

// defaultDeprecations writes kube-apiserver's default warning for a deprecated version of a
// CRD where the marker gave none: "<group>/<version> <Kind> is deprecated", and "; use
// <group>/<version> <Kind>" with the most preferred newer version that is not deprecated.
// Deprecation stays on each version's Resource, as a CRD keeps deprecated and
// deprecationWarning on each of its versions; the kind's versions give the newer one.
func defaultDeprecations(g *model.Group) {
	for _, k := range g.Kinds {
		for _, v := range k.Versions {
			r := v.Kind(k.Name)
			if !r.Deprecated || r.Deprecation != "" {
				continue
			}
			r.Deprecation = fmt.Sprintf("%s/%s %s is deprecated", g.Name, v.Name, k.Name)
			for _, newer := range k.Versions {
				if nr := newer.Kind(k.Name); !nr.Deprecated && version.CompareKubeAwareVersionStrings(v.Name, newer.Name) < 0 {
					r.Deprecation += fmt.Sprintf("; use %s/%s %s", g.Name, newer.Name, k.Name)
					break
				}
			}
		}
	}
}

// unregisteredMarker is SkippedKind.Marker of a kind its package never registers.
const unregisteredMarker = "registration"

// leaveOutUnregistered leaves out of a version that registers its kinds itself (with
// controller-runtime's SchemeBuilder.Register, or scheme.AddKnownTypes in its own
// addKnownTypes) the kinds its registering functions never name, with a warning at each: a
// root type kept as a duck type (KEDA's WithTriggers, whose CRD its Makefile deletes after
// controller-gen writes it) is in no scheme, and a server of it would not start. A package
// whose registering functions name none of its kinds (a list built elsewhere) keeps them all.
func (p *parser_) leaveOutUnregistered(v *model.Version, files []*ast.File) {
	registered := map[string]bool{}
	for _, f := range files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil || !registersKinds(fn.Body) {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if lit, ok := n.(*ast.CompositeLit); ok {
					if id, ok := lit.Type.(*ast.Ident); ok {
						registered[id.Name] = true
					}
				}
				return true
			})
		}
	}
	if !slices.ContainsFunc(v.Resources, func(r *model.Resource) bool { return registered[r.Kind] }) {
		return
	}
	kept := v.Resources[:0]
	for _, r := range v.Resources {
		if registered[r.Kind] {
			kept = append(kept, r)
			continue
		}
		v.Skipped = append(v.Skipped, model.SkippedKind{Kind: r.Kind, ListKind: r.ListKind, Marker: unregisteredMarker, Pos: r.Pos})
		p.Warn(r.Pos, "%s is a root type, but package %s never registers it (neither SchemeBuilder.Register nor AddKnownTypes names it), so it is not served "+
			"(a scheme without it cannot serve it); add &%s{} and &%s{} to the package's registration to serve it",
			r.Kind, v.Name, r.Kind, cmp.Or(r.ListKind, r.Kind+"List"))
	}
	v.Resources = kept
}

// registersKinds reports whether a function body calls SchemeBuilder.Register or a scheme's
// AddKnownTypes.
func registersKinds(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
			id, isIdent := sel.X.(*ast.Ident)
			found = sel.Sel.Name == "AddKnownTypes" || sel.Sel.Name == "Register" && isIdent && id.Name == "SchemeBuilder"
		}
		return !found
	})
	return found
}
