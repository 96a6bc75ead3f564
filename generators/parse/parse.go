// Package parse turns one load of a project into the model: it reads the markers and the
// shape of the API types. It is the only package that looks at Go syntax.
package parse

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"k8s.io/apimachinery/pkg/version"
	"k8s.io/gengo/v2/namer"
	gengotypes "k8s.io/gengo/v2/types"

	"github.com/apigen-dev/apigen/generators/loader"
	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/model"
)

// Project builds and validates the model of a loaded project. All problems are returned at once
// as a model.ErrorList with positions relative to the project root.
func Project(load *loader.Result) (*model.Project, error) {
	p := &parser_{
		load:           load,
		reg:            markers.Apigen(),
		strategyHooks:  map[*model.Resource][]hookAt{},
		internals:      map[string]*groupPackage{},
		installs:       map[string]*groupPackage{},
		fuzzers:        map[string]string{},
		noEffects:      map[string]*noEffectUse{},
		noLocalBuilder: map[*model.Version]token.Position{},
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
		storeSoleVersions(g)
		defaultDeprecations(g)
		p.settleGroupPackages(g)
		p.checkInstalledDefaults(g)
		p.checkStrategyHooks(g)
		p.checkMethodConversions(g)
		p.checkSelectableFields(g)
		p.checkScale(g)
		p.checkCustomSubresources(g)
		p.checkCustomStorage(g)
	}
	p.checkLocalSchemeBuilders()
	// A run that fails reports its warnings too, among the errors by position: a warning may
	// well explain an error (a constraint dropped, a marker without effect).
	if err := p.errs.Err(); err != nil {
		return nil, append(p.errs, p.warnings()...).Err()
	}
	if err := p.proj.Validate(); err != nil {
		return nil, append(err.(model.ErrorList), p.warnings()...).Err()
	}
	p.proj.Warnings = p.warnings()
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
	// noLocalBuilder are the versions that register their types themselves without a
	// localSchemeBuilder, with the position to report if they hold generated conversions.
	noLocalBuilder map[*model.Version]token.Position
	// strategyHooks are the hooks other than Default that each resource's type has.
	strategyHooks map[*model.Resource][]hookAt
	// warned are the warnings markers reported through their kind (Kind.Warn).
	warned model.ErrorList
	load   *loader.Result
	reg    *markers.Registry
	fset   *token.FileSet
	proj   *model.Project
	errs   model.ErrorList
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
	groupName, groupPos := p.groupName(files)
	version.DeclPos = p.declarations(files)
	version.Resources, version.Defaults = p.resources(files, gpkg)
	version.HandConversions = p.handConversions(files)
	if groupName == "" {
		groupName, groupPos = p.registeredGroup(files, gpkg, version.DeclPos)
	}
	switch {
	case controllerRuntimeBuilder(gpkg):
		version.ControllerRuntime = true
	case registers(gpkg):
		version.OwnRegistration = true
		p.checkOwnRegistration(version, files, gpkg)
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

// packageMarkers returns the markers of the comments above each file's package clause: the
// package doc comment and whatever precedes it (a license, "scaffolded by apigen").
func (p *parser_) packageMarkers(files []*ast.File) []*markers.Marker {
	var out []*markers.Marker
	for _, f := range files {
		for _, cg := range f.Comments {
			if cg.End() > f.Package {
				break
			}
			out = append(out, p.markersIn(cg, markers.Package)...)
		}
	}
	return out
}

// parseProjectPackage applies the project-level markers of pkg/apis (its doc.go, written by
// apigen init) to the project, each once.
func (p *parser_) parseProjectPackage(pkgPath string) {
	once := map[string]*markers.Marker{}
	for _, m := range p.packageMarkers(p.load.Files(pkgPath)) {
		if m.Def.Project == nil {
			continue
		}
		if first := once[m.Def.Name]; first != nil {
			p.errs.Add(m.Pos, "+%s is already set at %s; give every argument in one marker", m.Name, first.Pos)
			continue
		}
		once[m.Def.Name] = m
		if err := m.Def.Project(m, p.proj); err != nil {
			p.errs.Add(m.Pos, "%v", err)
		}
	}
}

// groupName finds +groupName in the package's doc comments.
func (p *parser_) groupName(files []*ast.File) (string, token.Position) {
	var name string
	var pos token.Position
	for _, m := range p.packageMarkers(files) {
		if m.Def.Project != nil {
			p.errs.Add(m.Pos, "+%s belongs in pkg/apis/doc.go, the project's package, not in a version's package", m.Name)
			continue
		}
		if m.Def.Name != markers.GroupName {
			continue
		}
		value := m.Args.(string)
		if name != "" && value != name {
			p.errs.Add(m.Pos, "+groupName=%s conflicts with +groupName=%s at %s", value, name, pos)
			continue
		}
		name, pos = value, m.Pos
	}
	return name, pos
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

// markersIn parses every marker line of a comment group, recording errors.
func (p *parser_) markersIn(cg *ast.CommentGroup, target markers.Target) []*markers.Marker {
	if cg == nil {
		return nil
	}
	var out []*markers.Marker
	for _, c := range cg.List {
		m, err := p.reg.Parse(c.Text, target, p.pos(c.Slash))
		if err != nil {
			e := err.(*markers.Error)
			p.errs.Add(e.Pos, "%s", e.Msg)
			continue
		}
		if m == nil {
			continue
		}
		if m.Def.NoEffect != "" {
			p.noEffect(m)
		}
		out = append(out, m)
	}
	return out
}

// noEffect records a marker that is accepted but changes nothing, once per marker name, with
// its first position and how often it appears.
func (p *parser_) noEffect(m *markers.Marker) {
	name := m.Written()
	use, ok := p.noEffects[name]
	if !ok {
		use = &noEffectUse{first: m.Pos, why: m.Def.NoEffect}
		p.noEffects[name] = use
	}
	use.count++
}

// noEffectUse is how a marker without effect is used in the project.
type noEffectUse struct {
	first token.Position
	why   string
	count int
}

// warnings are the run's warnings: one per marker that has no effect, and what markers
// reported through their kind.
func (p *parser_) warnings() model.ErrorList {
	out := slices.Clone(p.warned)
	for name, use := range p.noEffects {
		places := ""
		switch {
		case use.count == 2:
			places = " (here and in 1 more place)"
		case use.count > 2:
			places = fmt.Sprintf(" (here and in %d more places)", use.count-1)
		}
		out.Add(use.first, "warning: +%s has no effect: %s%s", name, use.why, places)
	}
	if err := out.Err(); err != nil {
		return err.(model.ErrorList)
	}
	return nil
}

// storeSoleVersions stores a kind that only one version of the group declares in that version,
// as if it carried +apigen:storageversion.
func storeSoleVersions(g *model.Group) {
	count := map[string]int{}
	for _, v := range g.Versions {
		for _, r := range v.Resources {
			count[r.Kind]++
		}
	}
	for _, v := range g.Versions {
		for _, r := range v.Resources {
			if count[r.Kind] == 1 {
				r.Storage = true
			}
		}
	}
}

// typeComments returns the comment groups whose markers apply to a type, as gengo's parser
// finds a type's CommentLines and SecondClosestCommentLines: the block ending on the line above
// the type's name, and the block ending two lines above that one (or above the name, when
// there is no first block), that is, separated from it by one blank line (where +genclient
// and +k8s: tags usually are in k8s.io/api).
func typeComments(endLines map[int]*ast.CommentGroup, fset *token.FileSet, spec *ast.TypeSpec) []*ast.CommentGroup {
	line := fset.Position(spec.Name.Pos()).Line
	closest := endLines[line-1]
	above := line
	if closest != nil {
		above = fset.Position(closest.Pos()).Line
	}
	var out []*ast.CommentGroup
	if second := endLines[above-2]; second != nil {
		out = append(out, second)
	}
	if closest != nil {
		out = append(out, closest)
	}
	return out
}

// commentEndLines maps each line of a file on which a comment group ends to that group.
func commentEndLines(f *ast.File, fset *token.FileSet) map[int]*ast.CommentGroup {
	out := map[int]*ast.CommentGroup{}
	for _, cg := range f.Comments {
		out[fset.Position(cg.End()).Line] = cg
	}
	return out
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

// resources finds the types marked as resources and reads their shape, and the field
// defaults of the package's structs.
func (p *parser_) resources(files []*ast.File, gpkg *gengotypes.Package) ([]*model.Resource, []*model.FieldDefault) {
	structs := map[string]*ast.StructType{}
	var out []*model.Resource
	var defaults []*model.FieldDefault
	type marked struct {
		spec *ast.TypeSpec
		ms   []*markers.Marker
	}
	var candidates []marked
	for _, f := range files {
		endLines := commentEndLines(f, p.fset)
		for _, d := range f.Decls {
			decl, ok := d.(*ast.GenDecl)
			if !ok || decl.Tok != token.TYPE {
				continue
			}
			for _, s := range decl.Specs {
				spec := s.(*ast.TypeSpec)
				if st, ok := spec.Type.(*ast.StructType); ok {
					structs[spec.Name.Name] = st
					for _, field := range st.Fields.List {
						defaults = append(defaults, p.fieldDefault(spec.Name.Name, field)...)
					}
				}
				var ms []*markers.Marker
				comments := typeComments(endLines, p.fset, spec)
				for _, cg := range comments {
					ms = append(ms, p.markersIn(cg, markers.Type)...)
				}
				if len(ms) > 0 && !p.invalidResourceMarker(comments) {
					candidates = append(candidates, marked{spec, ms})
				}
			}
		}
	}
	for _, c := range candidates {
		if r := p.resource(c.spec, c.ms, structs, gpkg); r != nil {
			out = append(out, r)
		}
	}
	p.checkJSONTags(out, structs)
	slices.SortFunc(out, func(a, b *model.Resource) int { return strings.Compare(a.Kind, b.Kind) })
	return out, defaults
}

// fieldDefault reads the markers of a struct field and returns its default, if it has one.
// Other field markers are only checked.
func (p *parser_) fieldDefault(typeName string, field *ast.Field) []*model.FieldDefault {
	var set *model.FieldDefault
	for _, m := range p.markersIn(field.Doc, markers.Field) {
		if m.Def.Name != markers.DefaultMarker && m.Def.Name != markers.KubebuilderDefault {
			continue
		}
		value, err := markers.FieldDefaultJSON(m.Def.Name, m.Args.(string))
		switch {
		case err != nil:
			p.errs.Add(m.Pos, "+%s: %v", m.Name, err)
		case len(field.Names) != 1:
			p.errs.Add(m.Pos, "+%s is set on an embedded field or a field list of %s; set it on one named field", m.Name, typeName)
		case set != nil && set.Marker != "+"+m.Name && jsonEqual(set.JSON, value):
			// Both spellings with one value: the same default, said twice.
		case set != nil && set.Marker != "+"+m.Name:
			// Both spellings, for two tools (cluster-api: +kubebuilder:default=FieldValueInvalid
			// for controller-gen's CRD, +default=ref(...FieldValueInvalid) for openapi-gen): the
			// CRD's is the one the server applies, as the CRD the project ships does.
			crd, other := *set, model.FieldDefault{JSON: value, Marker: "+" + m.Name, Pos: m.Pos}
			if m.Def.Name == markers.KubebuilderDefault {
				crd, other = other, crd
				set.JSON, set.Marker, set.Pos = crd.JSON, crd.Marker, crd.Pos
			}
			p.warned.Add(other.Pos, "warning: %s=%s on %s.%s is not applied: the field's %s=%s at %s is, as in the CustomResourceDefinition controller-gen makes of it",
				other.Marker, other.JSON, typeName, field.Names[0].Name, crd.Marker, crd.JSON, crd.Pos)
		case set != nil:
			p.errs.Add(m.Pos, "+%s: field %s.%s already has a default (%s at %s)", m.Name, typeName, field.Names[0].Name, set.Marker, set.Pos)
		default:
			set = &model.FieldDefault{Type: typeName, Field: field.Names[0].Name, JSON: value, Marker: "+" + m.Name, Pos: m.Pos}
		}
	}
	if set == nil {
		return nil
	}
	return []*model.FieldDefault{set}
}

var plural = namer.NewAllLowercasePluralNamer(nil)

func (p *parser_) resource(spec *ast.TypeSpec, ms []*markers.Marker, structs map[string]*ast.StructType, gpkg *gengotypes.Package) *model.Resource {
	var res *markers.Marker
	for _, m := range ms {
		if m.Def.Name != markers.ResourceMarker {
			continue
		}
		if res != nil {
			p.errs.Add(m.Pos, "+%s: %s already has +%s at %s", m.Name, spec.Name.Name, res.Name, res.Pos)
			continue
		}
		res = m
	}
	kind := spec.Name.Name
	args := &markers.Resource{}
	if res != nil {
		args = res.Args.(*markers.Resource)
	} else if res = genclientResource(ms); res == nil {
		for _, m := range ms {
			if m.Def.Resource != nil && !strings.HasPrefix(m.Def.Name, markers.GenClient+":") {
				p.errs.Add(m.Pos, "+%s is set on %s, which has no +apigen:resource marker; add one above it or remove this marker", m.Name, kind)
			}
		}
		return nil
	}
	resPos := res.Pos
	st, ok := structs[kind]
	if !ok {
		p.errs.Add(resPos, "+%s is set on %s, which is not a struct type; a resource is a struct embedding metav1.TypeMeta and metav1.ObjectMeta", res.Name, kind)
		return nil
	}
	if !ast.IsExported(kind) {
		p.errs.Add(resPos, "+%s is set on %s, which is not exported; a kind must start with an upper-case letter", res.Name, kind)
		return nil
	}
	r := &model.Resource{}
	r.Kind, r.Pos, r.Marker = kind, resPos, "+"+res.Name
	list, hasList := structs[kind+"List"]
	if hasList {
		r.ListKind = kind + "List"
	}
	r.Plural = args.Path
	if r.Plural == "" {
		r.Plural = plural.Name(&gengotypes.Type{Name: gengotypes.Name{Name: kind}})
	}
	r.Singular = args.Singular
	if r.Singular == "" {
		r.Singular = strings.ToLower(kind)
	}
	r.ShortNames, r.Categories = args.ShortName, args.Categories
	r.Scope = model.Scope(args.Scope)
	if r.Scope == "" {
		r.Scope = model.Namespaced
	}
	embeds := embeddedMeta(st)
	if !embeds["TypeMeta"] || !embeds["ObjectMeta"] {
		p.errs.Add(resPos, "+%s is set on %s, which must embed metav1.TypeMeta and metav1.ObjectMeta (with `json:\",inline\"` and `json:\"metadata,omitempty\"`)", res.Name, kind)
	}
	readShape(r, st)
	if r.Marker == "+"+markers.GenClient {
		// As kube-apiserver serves its built-in types: a Status field is a status subresource
		// unless +genclient:noStatus says otherwise.
		r.Subresources.Status = r.HasStatus
	}
	// Every other marker of the kind applies itself.
	kindType := &kindFields{p: p, t: gpkg.Types[kind]}
	for _, m := range ms {
		if m.Def.Resource == nil {
			continue
		}
		if err := m.Def.Resource(m, r, kindType); err != nil {
			p.errs.Add(m.Pos, "%v", err)
		}
	}
	switch {
	case !hasList && !r.NeedsList():
		// A virtual kind (a create-only review, as TokenReview): its own storage serves it
		// with no verb that answers with a list, so it needs none, as in kube-apiserver.
	case !hasList && r.Marker == "+"+markers.GenClient:
		// client-gen accepts it: a warning, and no client either (kube.Clients leaves it out),
		// since nothing registers the kind.
		p.warned.Add(resPos, "warning: +%s on %s has no effect: %s is not served and gets no client, since it has no list type, and %s", res.Name, kind, kind, noListHint(r))
		return nil
	case !hasList:
		p.errs.Add(resPos, "+%s is set on %s, which has no list type, and %s", res.Name, kind, noListHint(r))
	case !embeddedMeta(list)["TypeMeta"] || !embeddedMeta(list)["ListMeta"] || !hasItems(list, kind):
		p.errs.Add(p.pos(list.Pos()), "%s must embed metav1.TypeMeta and metav1.ListMeta and have `Items []%s`", r.ListKind, kind)
	}
	r.Hooks = p.hooks(gpkg.Types[kind], r)
	r.Conversion, r.ConversionPos = p.conversionRole(gpkg.Types[kind])
	if r.Hooks.ValidateStatusUpdate && !r.Subresources.Status {
		p.errs.Add(p.methodPos(gpkg.Types[kind], "ValidateStatusUpdate"), "method %s.ValidateStatusUpdate is never called: %s has no status subresource; add +apigen:subresource:status or remove the method", kind, kind)
	}
	return r
}

// genclientResource is the +genclient tag that declares a kind a resource in a
// Kubernetes-style package, when the kind has no resource marker of apigen's or kubebuilder's:
// +genclient itself (not =false), and no +genclient:noVerbs (policy's Eviction, a body that
// only a subresource takes).
func genclientResource(ms []*markers.Marker) *markers.Marker {
	var tag *markers.Marker
	for _, m := range ms {
		switch m.Def.Name {
		case markers.GenClient:
			if m.Args == true {
				tag = m
			}
		case markers.GenClientNoVerbs:
			return nil
		}
	}
	return tag
}

// readShape records whether a kind's struct has Spec and Status fields, and Status's type.
func readShape(r *model.Resource, st *ast.StructType) {
	r.HasSpec, r.HasStatus, r.StatusType = false, false, ""
	for _, f := range st.Fields.List {
		for _, n := range f.Names {
			switch n.Name {
			case "Spec":
				r.HasSpec = true
			case "Status":
				r.HasStatus, r.StatusType = true, localTypeName(f.Type)
			}
		}
	}
}

// embeddedMeta returns the names of the metav1 types a struct embeds (TypeMeta, ObjectMeta,
// ListMeta). Any import name of metav1 is fine; only the selector matters here, and the loader
// has type-checked the package.
func embeddedMeta(st *ast.StructType) map[string]bool {
	out := map[string]bool{}
	for _, f := range st.Fields.List {
		if len(f.Names) != 0 {
			continue
		}
		if sel, ok := f.Type.(*ast.SelectorExpr); ok {
			out[sel.Sel.Name] = true
		}
	}
	return out
}

func hasItems(st *ast.StructType, kind string) bool {
	for _, f := range st.Fields.List {
		for _, n := range f.Names {
			if n.Name != "Items" {
				continue
			}
			if arr, ok := f.Type.(*ast.ArrayType); ok && arr.Len == nil {
				if id, ok := arr.Elt.(*ast.Ident); ok && id.Name == kind {
					return true
				}
			}
		}
	}
	return false
}

// localTypeName returns the name of a type declared in the same package ("FooStatus" or
// "*FooStatus"), or "" for anything else.
func localTypeName(expr ast.Expr) string {
	switch t := expr.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.StarExpr:
		if id, ok := t.X.(*ast.Ident); ok {
			return "*" + id.Name
		}
	}
	return ""
}

// checkJSONTags reports every exported, non-embedded field without a JSON name in the
// resources' types and the local struct types they reach (Spec, Status and what they
// contain), and in their list types: encoding/json would serialize such a field under its Go
// name ("Replicas"), which is never what an API wants.
func (p *parser_) checkJSONTags(rs []*model.Resource, structs map[string]*ast.StructType) {
	seen := map[string]bool{}
	var walk func(name string)
	walkType := func(expr ast.Expr) {
		for {
			switch t := expr.(type) {
			case *ast.StarExpr:
				expr = t.X
				continue
			case *ast.ArrayType:
				expr = t.Elt
				continue
			case *ast.MapType:
				expr = t.Value
				continue
			case *ast.Ident:
				walk(t.Name)
			}
			return
		}
	}
	walk = func(name string) {
		st, ok := structs[name]
		if !ok || seen[name] {
			return
		}
		seen[name] = true
		for _, f := range st.Fields.List {
			walkType(f.Type)
			for _, n := range f.Names {
				if !n.IsExported() {
					continue
				}
				var tag string
				if f.Tag != nil {
					tag, _ = strconv.Unquote(f.Tag.Value)
				}
				jsonTag, ok := reflect.StructTag(tag).Lookup("json")
				jsonName, _, _ := strings.Cut(jsonTag, ",")
				switch {
				case jsonName == "-":
				case !ok:
					p.errs.Add(p.pos(n.Pos()), "field %s.%s has no json tag, so it would be serialized as %q; add `json:\"%s,omitempty\"` (or `json:\"-\"` to leave it out)", name, n.Name, n.Name, lowerFirst(n.Name))
				case jsonName == "":
					p.errs.Add(p.pos(n.Pos()), "field %s.%s has the json tag %q without a name, so it would be serialized as %q; write `json:\"%s%s\"`", name, n.Name, jsonTag, n.Name, lowerFirst(n.Name), jsonTag)
				}
			}
		}
	}
	for _, r := range rs {
		walk(r.Kind)
		walk(r.ListKind)
	}
}

// lowerFirst suggests a JSON name for a Go field name: "Replicas" → "replicas", "URL" → "url",
// "TLSConfig" → "tlsConfig".
func lowerFirst(s string) string {
	rs := []rune(s)
	i := 0
	for i < len(rs) && unicode.IsUpper(rs[i]) {
		i++
	}
	if i > 1 && i < len(rs) {
		i-- // keep the upper-case letter that starts the next word
	}
	for j := range i {
		rs[j] = unicode.ToLower(rs[j])
	}
	return string(rs)
}

// defaultDeprecations writes kube-apiserver's default warning for a deprecated version of a
// CRD where the marker gave none: "<group>/<version> <Kind> is deprecated", and "; use
// <group>/<version> <Kind>" with the most preferred newer version that is not deprecated.
func defaultDeprecations(g *model.Group) {
	for _, v := range g.Versions {
		for _, r := range v.Resources {
			if !r.Deprecated || r.Deprecation != "" {
				continue
			}
			r.Deprecation = fmt.Sprintf("%s/%s %s is deprecated", g.Name, v.Name, r.Kind)
			for _, newer := range g.ByPriority() {
				if nr := newer.Kind(r.Kind); nr != nil && !nr.Deprecated && version.CompareKubeAwareVersionStrings(v.Name, newer.Name) < 0 {
					r.Deprecation += fmt.Sprintf("; use %s/%s %s", g.Name, newer.Name, r.Kind)
					break
				}
			}
		}
	}
}

// kindFields answers a type marker's questions about the kind's Go type.
type kindFields struct {
	p *parser_
	t *gengotypes.Type
	// scale is the kind's first scale subresource marker.
	scale *markers.Marker
}

func (k *kindFields) SelectableField(jsonPath string) (model.SelectableField, error) {
	return selectableField(k.t, jsonPath)
}

func (k *kindFields) ColumnPath(jsonPath string) error { return columnPath(k.t, jsonPath) }

func (k *kindFields) Warn(m *markers.Marker, format string, args ...any) {
	k.p.warned.Add(m.Pos, "warning: "+format, args...)
}

func (k *kindFields) Scale(m *markers.Marker) *model.Scale {
	if k.scale != nil {
		k.p.errs.Add(m.Pos, "+%s: %s already has +%s at %s", m.Name, k.t.Name.Name, k.scale.Name, k.scale.Pos)
		return nil
	}
	k.scale = m
	return k.p.scaleSubresource(m, k.t)
}

func (k *kindFields) ScaleFields(a *markers.Scale) (*model.Scale, error) {
	s, problems := scaleFields(k.t, a)
	if len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "; "))
	}
	return s, nil
}

// jsonEqual reports whether two JSON documents hold the same value.
func jsonEqual(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}
