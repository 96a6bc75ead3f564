package kube

import (
	"maps"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	oaargs "k8s.io/kube-openapi/cmd/openapi-gen/args"
	oacommon "k8s.io/kube-openapi/pkg/common"
	oagen "k8s.io/kube-openapi/pkg/generators"

	"k8s.io/gengo/v2/generator"
	"k8s.io/gengo/v2/namer"
	"k8s.io/gengo/v2/types"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/loader"
	"github.com/apigen-dev/apigen/generators/model"
	"github.com/apigen-dev/apigen/internal/jsonview"
)

const (
	// OpenAPIDir is the project-relative directory of the OpenAPI definitions; the package
	// there is named openapi and exports GetOpenAPIDefinitions.
	OpenAPIDir    = "pkg/generated/openapi"
	openAPIFile   = "zz_generated.openapi.go"
	modelNameFile = "zz_generated.model_name.go"

	openAPITag = "k8s:openapi-gen"
	// modelPackageTag names the OpenAPI model package of a version package.
	modelPackageTag = "k8s:openapi-model-package"
	openAPIKeepTag  = "true"
	openAPISkipTag  = "false"
)

// OpenAPI returns the generator that runs openapi-gen and writes
// pkg/generated/openapi/zz_generated.openapi.go. The definitions cover every type of the
// model's version packages and of loader.BasePackages (what the generic server itself
// serves), and, from any other package, exactly the types those refer to, transitively, the
// way openapi-gen's definitions refer to each other. To get that, version packages get
// +k8s:openapi-gen=true unless they have a package-level +k8s:openapi-gen tag of their own;
// each referenced type elsewhere gets a type-level tag, and another package's package-level
// tag (k8s.io/api/core/v1 has one) is set aside for the run, so that a field of type
// corev1.ResourceRequirements does not bring in all of core/v1. Types marked
// +k8s:openapi-gen=false stay out.
//
// openapi-gen's model-name step runs too, over the version packages only: it writes
// <version dir>/zz_generated.model_name.go for a package that opts in with
// +k8s:openapi-model-package=<name>, which the definitions then call; for the others it
// writes nothing and definitions are named by Go import path, which is what the generic API
// server's namer expects for types without an OpenAPIModelName method.
func OpenAPI() engine.Upstream { return openAPI{} }

type openAPI struct {
	// wholeUniverse gives openapi-gen the whole load, and each of its definitions writers
	// the whole of it to scan for enums, as its own main would (a test compares).
	wholeUniverse bool
}

func (openAPI) Name() string { return "openapi" }

func (o openAPI) Generate(ctx *engine.LoadContext, out *engine.Output) error {
	pkgs, dirs, err := versionPackages(ctx)
	if err != nil {
		return err
	}
	var tags tagEdits
	defer tags.restore()
	for _, p := range pkgs {
		tags.addPackageTag(ctx.Load.Universe[p], openAPITag, openAPIKeepTag)
		// The server names definitions through the scheme (runtime.Scheme.ToOpenAPIDefinitionName),
		// which for a type without an OpenAPIModelName method derives a REST-friendly name from
		// its import path; openapi-gen would key it by the import path itself, so the two would
		// not meet and kinds would lose their x-kubernetes-group-version-kind (no kubectl
		// explain, no server-side apply). Naming the model package gives both the same name.
		tags.addPackageTag(ctx.Load.Universe[p], modelPackageTag, restFriendlyName(p))
		// openapi-gen takes every type of a package tagged as a whole, unexported ones too (a
		// user's helper types for a conversion), whose definitions the generated package could
		// not name.
		for _, t := range ctx.Load.Universe[p].Types {
			if namer.IsPrivateGoName(t.Name.Name) {
				tags.addTypeTag(t, openAPITag, openAPISkipTag)
			}
		}
	}
	if err := addFieldDefaults(ctx, &tags); err != nil {
		return err
	}
	withholdUnpublishableDefaults(ctx, &tags)
	alignPatchTags(ctx, &tags)
	publishDeclarativeTags(ctx, &tags)
	inputs, err := openAPIInputs(ctx.Load, pkgs, &tags)
	if err != nil {
		return err
	}
	hideShadowedMembers(ctx.Load.Universe, inputs, &tags)

	outPkg := path.Join(ctx.Load.Module, OpenAPIDir)
	args := oaargs.New()
	args.OutputDir = OpenAPIDir // unused: targets run in memory
	args.OutputPkg = outPkg
	args.OutputFile = openAPIFile
	args.OutputModelNameFile = modelNameFile
	args.ReportFilename = "-" // the report's file type is replaced; nothing is printed

	// The project's other packages that name their model package themselves get their model
	// names too: the definitions call their OpenAPIModelName methods.
	namedPkgs, namedDirs := slices.Clip(pkgs), maps.Clone(dirs)
	for p, dir := range ownModelPackages(ctx.Load, ctx.Project) {
		namedPkgs, namedDirs[p] = append(namedPkgs, p), dir
	}
	slices.Sort(namedPkgs)

	// pitfall 7: both target functions, one load. Model names first, as openapi-gen's main
	// does; the definitions do not depend on the files it writes (they read the tag).
	if len(pkgs) > 0 {
		err := run(ctx, out, upstream{
			name:              "openapi-gen (model names)",
			nameSystems:       oagen.NameSystems(),
			defaultNameSystem: oagen.DefaultNameSystem(),
			inputs:            namedPkgs, // never the dependencies: they are read-only
			dirs:              namedDirs,
			targets: func(c *generator.Context) []generator.Target {
				return oagen.GetModelNameTargets(c, args, nil)
			},
		})
		if err != nil {
			return err
		}
	}
	return run(ctx, out, upstream{
		name:              "openapi-gen",
		nameSystems:       oagen.NameSystems(),
		defaultNameSystem: oagen.DefaultNameSystem(),
		inputs:            inputs,
		dirs:              map[string]string{outPkg: OpenAPIDir},
		ignoredFileTypes:  []string{"api-violation"}, // API rule violations never fail generation
		targets: func(c *generator.Context) []generator.Target {
			targets := oagen.GetOpenAPITargets(c, args, nil)
			if !o.wholeUniverse {
				for i, t := range targets {
					targets[i] = enumScopedTarget{Target: t, file: args.OutputFile}
				}
			}
			return targets
		},
		universe: o.universe(),
	})
}

// ownModelPackages are the project's packages besides the version packages that declare their
// model package (+k8s:openapi-model-package; the model's ModelPackages), by their directory
// relative to the project root: openapi-gen names their types' definitions by the
// OpenAPIModelName methods it writes beside them, as kube_codegen.sh's openapi-gen run would.
func ownModelPackages(load *loader.Result, p *model.Project) map[string]string {
	out := map[string]string{}
	for path := range p.ModelPackages {
		if pkg := load.Universe[path]; pkg != nil {
			if rel, err := filepath.Rel(load.Root, pkg.Dir); err == nil && filepath.IsLocal(rel) {
				out[path] = filepath.ToSlash(rel)
			}
		}
	}
	return out
}

// universe narrows the definitions run's universe to what openapi-gen reads (enumUniverse),
// unless the generator was made to see the whole load.
func (o openAPI) universe() func(types.Universe, []string) types.Universe {
	if o.wholeUniverse {
		return nil
	}
	return enumUniverse
}

// enumUniverse is the part of u openapi-gen's definitions read: the inputs (every type a
// definition refers to is in one, see openAPIInputs), the builtins, and every package that
// declares an +enum type or a value of one, which is where openapi-gen looks for enums. It
// scans the universe for them once per type it writes (kube-openapi's newOpenAPITypeWriter
// calls parseEnums, which parses the comment tags of every string type), so every definition
// paid for every package of the load: the dependencies' hundreds. enumTypes is openapi-gen's
// test (isEnumType), so the scan over this part finds the same enums with the same values.
// Each definition's own scan is narrowed further, to the enums it may look up (enumScope);
// this part is what enumScope scans once.
func enumUniverse(u types.Universe, inputs []string) types.Universe {
	isEnum := enumTypes(u)
	keep := types.Universe{"": u[""]}
	for _, p := range inputs {
		if pkg, ok := u[p]; ok {
			keep[p] = pkg
		}
	}
	enums := map[*types.Type]bool{}
	for path, pkg := range u {
		for _, t := range pkg.Types {
			if isEnum(t) {
				enums[t] = true
				keep[path] = pkg
			}
		}
	}
	for path, pkg := range u {
		for _, c := range pkg.Constants {
			if enums[c.Underlying] {
				keep[path] = pkg
				break
			}
		}
	}
	return keep
}

// hideShadowedMembers gives each struct of the inputs, for the run, the members of its
// jsonview.View: openapi-gen writes every member it reaches through inlined members, also those
// encoding/json never encodes because a shallower field of the same JSON name hides them
// (and then writes one property twice, which does not compile).
func hideShadowedMembers(u types.Universe, inputs []string, tags *tagEdits) {
	setViews(u, inputs, tags, jsonview.View)
}

// setViews gives each type of the inputs, for the run, the members of view(t) where view
// changes it.
func setViews(u types.Universe, inputs []string, tags *tagEdits, view func(*types.Type) *types.Type) {
	for _, p := range inputs {
		pkg := u[p]
		if pkg == nil {
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(pkg.Types)) {
			t := pkg.Types[name]
			if v := view(t); v != t {
				tags.setMembers(t, v.Members)
			}
		}
	}
}

// openAPIInputs returns the packages openapi-gen needs as inputs so that every definition it
// writes has the definitions it refers to: the version packages, the base packages and the
// packages of every type they reference, following openapi-gen's own rules for what a
// definition refers to. The version and base packages contribute every type their tags
// select; from any other package only the referenced types are defined (and the ones its
// authors tagged one by one): its package-level +k8s:openapi-gen=true is taken away and the
// referenced types get a type-level one, in tags.
func openAPIInputs(load *loader.Result, versionPkgs []string, tags *tagEdits) ([]string, error) {
	w := &openAPIWalk{load: load, tags: tags, inputs: map[string]bool{}, whole: map[string]bool{}, seen: map[*types.Type]bool{}}
	for _, p := range slices.Concat(versionPkgs, loader.BasePackages) {
		w.whole[p] = true
	}
	for _, p := range slices.Concat(versionPkgs, loader.BasePackages) {
		if err := w.addPackage(p); err != nil {
			return nil, err
		}
	}
	for len(w.queue) > 0 {
		t := w.queue[0]
		w.queue = w.queue[1:]
		if err := w.walk(t); err != nil {
			return nil, err
		}
	}
	return slices.Sorted(maps.Keys(w.inputs)), nil
}

type openAPIWalk struct {
	load   *loader.Result
	tags   *tagEdits
	inputs map[string]bool
	// whole are the packages all of whose (tag-selected) types are defined.
	whole map[string]bool
	seen  map[*types.Type]bool
	queue []*types.Type
}

// addPackage makes a package an input and queues every type openapi-gen will define in it.
func (w *openAPIWalk) addPackage(p string) error {
	if w.inputs[p] {
		return nil
	}
	// Tags live in comments, which gengo keeps only for fully processed packages.
	if err := w.load.Require(p); err != nil {
		return err
	}
	w.inputs[p] = true
	pkg := w.load.Universe[p]
	if !w.whole[p] {
		w.tags.removePackageTag(pkg, openAPITag, openAPIKeepTag)
	}
	for _, name := range slices.Sorted(maps.Keys(pkg.Types)) {
		if t := pkg.Types[name]; w.defined(t) {
			w.enqueue(t)
		}
	}
	return nil
}

func (w *openAPIWalk) enqueue(t *types.Type) {
	if !w.seen[t] {
		w.seen[t] = true
		w.queue = append(w.queue, t)
	}
}

// defined reports whether openapi-gen writes a definition for t, given the tags now in the
// universe (openapi-gen's apiTypeFilterFunc, and only exported structs get a definition).
func (w *openAPIWalk) defined(t *types.Type) bool {
	if t.Kind != types.Struct || namer.IsPrivateGoName(t.Name.Name) || strings.HasPrefix(t.Name.Name, "codecSelfer") {
		return false
	}
	if pkg := w.load.Universe[t.Name.Package]; pkg != nil && hasTagValue(pkg.Comments, openAPITag, openAPIKeepTag) {
		return !hasTagValue(t.CommentLines, openAPITag, openAPISkipTag)
	}
	return hasTagValue(t.CommentLines, openAPITag, openAPIKeepTag)
}

// walk follows the references of t's definition. A type that brings its own definition
// (OpenAPIDefinition, OpenAPIV3Definition, or OpenAPISchemaType and OpenAPISchemaFormat, as
// resource.Quantity and intstr.IntOrString do) refers to nothing.
func (w *openAPIWalk) walk(t *types.Type) error {
	if method(t, "OpenAPIDefinition") || method(t, "OpenAPIV3Definition") ||
		(method(t, "OpenAPISchemaType") && method(t, "OpenAPISchemaFormat")) {
		return nil
	}
	return w.members(t)
}

// members follows the properties of a struct as openapi-gen writes them: inline embedded
// members contribute their members, members without a JSON name or marked
// +k8s:openapi-gen=false are left out, and ",string" members are strings.
func (w *openAPIWalk) members(t *types.Type) error {
	for t.Kind == types.Pointer {
		t = t.Elem
	}
	for _, m := range t.Members {
		if hasTagValue(m.CommentLines, openAPITag, openAPISkipTag) {
			continue
		}
		tag, hasJSON := reflect.StructTag(m.Tags).Lookup("json")
		if m.Embedded && hasJSON && (tag == "" || strings.HasPrefix(tag, ",")) {
			if err := w.members(m.Type); err != nil {
				return err
			}
			continue
		}
		opts := strings.Split(tag, ",")
		if opts[0] == "-" || len(opts) > 1 && opts[1] == "string" {
			continue
		}
		if err := w.property(m.Type); err != nil {
			return err
		}
	}
	return nil
}

// property follows the schema of one property: maps, slices and arrays through their
// elements, to the struct types it refers to.
func (w *openAPIWalk) property(t *types.Type) error {
	t = resolve(t)
	if typ, _ := oacommon.OpenAPITypeFormat(t.String()); typ != "" {
		return nil // a simple type: string, integer, time.Time, []byte...
	}
	switch t.Kind {
	case types.Map, types.Slice, types.Array:
		return w.property(t.Elem)
	case types.Struct:
		return w.reference(t)
	}
	return nil // interfaces are not described; openapi-gen reports other kinds itself
}

// reference records that a definition refers to struct t: t's package becomes an input, and
// t is tagged if nothing else would make openapi-gen define it.
func (w *openAPIWalk) reference(t *types.Type) error {
	if t.Name.Package == "" {
		return nil // an anonymous struct; openapi-gen cannot refer to it either
	}
	if err := w.addPackage(t.Name.Package); err != nil {
		return err
	}
	if w.defined(t) || namer.IsPrivateGoName(t.Name.Name) || hasTagValue(t.CommentLines, openAPITag, openAPISkipTag) {
		return nil // defined already, or the author said not to
	}
	w.tags.addTypeTag(t, openAPITag, openAPIKeepTag)
	w.enqueue(t)
	return nil
}

// resolve follows aliases (named non-struct types, in gengo) and pointers.
func resolve(t *types.Type) *types.Type {
	for t.Kind == types.Alias || t.Kind == types.Pointer {
		if t.Kind == types.Alias {
			t = t.Underlying
		} else {
			t = t.Elem
		}
	}
	return t
}

// method reports whether t has a method of that name without parameters and with one result.
func method(t *types.Type, name string) bool {
	m := t.Methods[name]
	return m != nil && m.Signature != nil && len(m.Signature.Parameters) == 0 && len(m.Signature.Results) == 1
}

func hasTagValue(lines []string, name, value string) bool {
	return slices.Contains(tagValues(lines, name), value)
}

// restFriendlyName turns an import path into the name Kubernetes gives its OpenAPI models:
// example.com/wardle/pkg/apis/wardle/v1alpha1 becomes com.example.wardle.pkg.apis.wardle.v1alpha1.
func restFriendlyName(importPath string) string {
	parts := strings.Split(importPath, "/")
	if strings.Contains(parts[0], ".") {
		host := strings.Split(parts[0], ".")
		slices.Reverse(host)
		parts[0] = strings.Join(host, ".")
	}
	return strings.Join(parts, ".")
}

// patchTags are the strategic-merge-patch tags openapi-gen requires, as comment tags, to equal
// the struct tags of the same name, one value each.
var patchTags = []string{"patchMergeKey", "patchStrategy"}

// alignPatchTags gives openapi-gen each field's patch comment tags as its struct tags have
// them: strategic merge patch reads the struct tags, so they are what the served OpenAPI must
// say. openapi-gen instead fails, naming no file, on a comment tag written twice ("multiple
// values are not allowed for tag patchMergeKey") or one that differs from the struct tag.
// A repeated tag of the struct tag's value is harmless; a different value is a warning at the
// type, since the server patches by the struct tag.
func alignPatchTags(ctx *engine.LoadContext, tags *tagEdits) {
	for _, v := range versions(ctx.Project) {
		pkg := ctx.Load.Universe[v.Package]
		if pkg == nil {
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(pkg.Types)) {
			t := pkg.Types[name]
			for _, m := range t.Members {
				for _, tag := range patchTags {
					comment := slices.Compact(slices.Sorted(slices.Values(tagValues(m.CommentLines, tag))))
					structTag := reflect.StructTag(m.Tags).Get(tag)
					if len(comment) == 0 && structTag == "" || slices.Equal(comment, []string{structTag}) && len(tagValues(m.CommentLines, tag)) == 1 {
						continue
					}
					if len(comment) > 0 && !slices.Equal(comment, []string{structTag}) {
						ctx.Warn(v.DeclPos[name], "%s.%s: +%s=%s in its comment differs from its struct tag %s:%q; strategic merge patch uses the struct tag, and so does the served OpenAPI",
							name, m.Name, tag, strings.Join(comment, ","), tag, structTag)
					}
					tags.setMemberTag(t, m.Name, tag, structTag)
				}
			}
		}
	}
}
