package kube

import (
	"cmp"
	"fmt"
	"go/token"
	gotypes "go/types"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"

	"k8s.io/apimachinery/pkg/util/validation/field"
	vgutil "k8s.io/code-generator/cmd/validation-gen/util"
	"k8s.io/code-generator/cmd/validation-gen/validators"
	"k8s.io/gengo/v2/codetags"
	"k8s.io/gengo/v2/generator"
	"k8s.io/gengo/v2/namer"
	"k8s.io/gengo/v2/parser/tags"
	"k8s.io/gengo/v2/types"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/model"
)

// ValidationsFile is validation-gen's output in a version directory: a Validate_<Type>
// function per type that has +k8s: validation rules (its own or its fields'), and
// RegisterValidations, which adds each kind's to the scheme for the generic registry to run.
const ValidationsFile = "zz_generated.validations.go"

// Validation returns the generator that turns the +k8s: validation tags of every version
// package into Go, as k8s.io/code-generator's validation-gen does for kube-apiserver's built-in
// types: its validators package decides what each tag means (the same code kube-apiserver's
// rules come from); this file walks the types and writes the calls. validation-gen's own
// walker is a main package, which cannot be imported. Each kind whose type has rules is
// marked Resource.DeclarativeValidation, and its strategies run them on create and update.
//
// The rules of the k8s.io/api types a kind uses run inside it, as in kube-apiserver, and so do
// those of the types the project declares in its other packages (a pkg/apis/shared type a kind
// embeds); types from other packages outside the project (ObjectMeta, whose rules the registry
// checks, and resource.Quantity) are opaque.
func Validation() engine.Upstream { return validation{} }

type validation struct{}

func (validation) Name() string { return "validation" }

func (validation) Generate(ctx *engine.LoadContext, out *engine.Output) error {
	pkgs, dirs, err := versionPackages(ctx)
	if err != nil || len(pkgs) == 0 {
		return err
	}
	kinds, subresources := map[string][]*types.Type{}, map[*types.Type][]string{}
	// A package that registers its types itself without a localSchemeBuilder (k8s.io/api's)
	// leaves its validations to whoever installs it, as its defaults.
	installed := map[string]bool{}
	for _, v := range versions(ctx.Project) {
		_, builder := v.DeclPos["localSchemeBuilder"]
		installed[v.Package] = v.OwnRegistration && !builder
		for _, r := range v.Resources {
			if t := ctx.Load.Universe[v.Package].Types[r.Kind]; t != nil {
				kinds[v.Package] = append(kinds[v.Package], t)
				subresources[t] = servedSubresources(r)
			}
		}
		checkSubresourceTags(ctx, v)
	}

	pos := func(t *types.Type, member string) token.Position { return declPos(ctx, t, member) }
	validationTags.Lock()
	defer validationTags.Unlock()
	var (
		runErr     error
		registered = map[*types.Type]bool{}
		notes      = &validationNotes{options: map[string][]token.Position{}, handWritten: map[string]bool{}}
	)
	var shared []string
	for _, p := range projectPackages(ctx) {
		if !slices.Contains(pkgs, p) {
			shared = append(shared, p)
		}
	}
	err = run(ctx, out, upstream{
		name:              "validation-gen",
		nameSystems:       validationNameSystems(),
		defaultNameSystem: "public",
		inputs:            pkgs,
		dirs:              dirs,
		targets: func(c *generator.Context) []generator.Target {
			targets, err := validationTargets(c, pkgs, shared, kinds, subresources, installed, registered, notes, pos)
			runErr = err
			return targets
		},
	})
	if err == nil {
		err = runErr
	}
	if err != nil {
		return err
	}
	names := notes.warn(ctx)
	for _, v := range versions(ctx.Project) {
		for _, r := range v.Resources {
			r.DeclarativeValidation = registered[ctx.Load.Universe[v.Package].Types[r.Kind]]
			if r.DeclarativeValidation {
				r.ValidationOptions = names
				v.InstallRegistersValidations = installed[v.Package]
			}
		}
	}
	return nil
}

// warn reports the notes and returns the validation options, sorted.
func (n *validationNotes) warn(ctx *engine.LoadContext) []string {
	if len(n.handWritten) > 0 {
		ctx.Warn(token.Position{}, "the Kubernetes types the kinds use have rules kube-apiserver implements by hand "+
			"(+k8s:customValidation, functions of k8s.io/kubernetes), which the generated server does not run: %s",
			strings.Join(slices.Sorted(maps.Keys(n.handWritten)), ", "))
	}
	for _, m := range n.missing {
		ctx.Warn(m.pos, "+k8s:customValidation has no effect: the package declares no %s(ctx context.Context, op operation.Operation, "+
			"fldPath *field.Path, obj, oldObj <the value's nilable type>) field.ErrorList for it to call; write one to run the rule", m.name)
	}
	names := slices.Sorted(maps.Keys(n.options))
	for _, name := range names {
		at := n.options[name]
		slices.SortFunc(at, comparePositions)
		at = slices.Compact(at)
		more := ""
		switch len(at) {
		case 1:
		case 2:
			more = " (here and in 1 more place)"
		default:
			more = fmt.Sprintf(" (here and in %d more places)", len(at)-1)
		}
		ctx.Warn(at[0], "rules conditioned on validation option %s (+k8s:ifEnabled(%[1]s), +k8s:ifDisabled(%[1]s)) run as the "+
			"generated server's feature gate %[1]s says, as kube-apiserver's run as its gate of that name says: the gate is "+
			"off by default unless the Kubernetes libraries have one of that name (kube-apiserver's own may default on), "+
			"and --feature-gates=%[1]s=true enables it%s", name, more)
	}
	return names
}

func comparePositions(a, b token.Position) int {
	return cmp.Or(cmp.Compare(a.Filename, b.Filename), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
}

// validationNotes are what a run of the walk tells the user about: the validation options
// rules depend on, with where each is used, and the hand-written rules of Kubernetes types it
// cannot run.
type validationNotes struct {
	options     map[string][]token.Position
	handWritten map[string]bool
	missing     []missingFunction
}

// missingFunction is a +k8s:customValidation whose function the project does not declare.
type missingFunction struct {
	pos  token.Position
	name string
}

// servedSubresources are the subresource paths a kind's rules are registered for: the kind
// itself and every subresource it serves (status, scale, and the custom ones, whose storage may
// write the object through the kind's strategies). kube-apiserver's built-in types list theirs
// with +k8s:supportsSubresource; a kind here has the ones it serves.
func servedSubresources(r *model.Resource) []string {
	paths := []string{"/"}
	if r.Subresources.Status {
		paths = append(paths, "/status")
	}
	if r.Subresources.Scale != nil {
		paths = append(paths, "/scale")
	}
	for _, c := range r.Subresources.Custom {
		paths = append(paths, "/"+c.Name)
	}
	slices.Sort(paths)
	return slices.Compact(paths)
}

const (
	supportsSubresourceTag = "k8s:supportsSubresource"
	isSubresourceTag       = "k8s:isSubresource"
)

// checkSubresourceTags gives validation-gen's subresource tags of a version's types the meaning
// they can have here, and warns at the type where they have none. +k8s:supportsSubresource="/x"
// registers a kind's rules for writes through x as well; a kind here has its rules registered
// for every subresource it serves (servedSubresources), so the tag naming a served one says what
// apigen does anyway, and naming one the kind does not serve it registers rules no request
// reaches. +k8s:isSubresource="/x" says a type is the body of subresource x of some kind
// (extensions/v1beta1's Scale): apigen registers rules for the kinds it serves only, and /scale
// reads and writes an autoscaling/v1 Scale, so the tag has no effect.
func checkSubresourceTags(ctx *engine.LoadContext, v *model.Version) {
	pkg := ctx.Load.Universe[v.Package]
	if pkg == nil {
		return
	}
	served := map[string][]string{}
	for _, r := range v.Resources {
		served[r.Kind] = servedSubresources(r)
	}
	for _, name := range slices.Sorted(maps.Keys(pkg.Types)) {
		t := pkg.Types[name]
		extracted := codetags.Extract("+", typeComments(t))
		for _, tag := range []string{supportsSubresourceTag, isSubresourceTag} {
			lines := extracted[tag]
			if len(lines) == 0 {
				continue
			}
			at := declPos(ctx, t, "")
			if !at.IsValid() {
				at = v.DeclPos[name]
			}
			parsed, err := codetags.ParseAll(lines)
			if err != nil {
				ctx.Warn(at, "+%s has no effect: %v", tag, err)
				continue
			}
			paths, isKind := served[name]
			for _, p := range parsed {
				switch {
				case tag == isSubresourceTag:
					ctx.Warn(at, "+%s=%q has no effect: apigen runs the rules of the kinds it serves, for writes of the kind and of each subresource the kind serves (/scale reads and writes an autoscaling/v1 Scale)", tag, p.Value)
				case !isKind:
					ctx.Warn(at, "+%s=%q has no effect: %s is not a kind apigen serves; a kind's rules run for writes of the kind and of every subresource it serves", tag, p.Value, name)
				case !slices.Contains(paths, p.Value):
					ctx.Warn(at, "+%s=%q has no effect: %s serves no %s subresource; its rules run for writes through %s, every path it serves (+apigen:subresource:...), without this tag", tag, p.Value, name, p.Value, strings.Join(paths, ", "))
				}
			}
		}
	}
}

// validationNameSystems are the walk's: public orders the types, raw names them in the code
// (each file's own raw namer tracks its imports).
func validationNameSystems() namer.NameSystems {
	return namer.NameSystems{
		"public": namer.NewPublicNamer(1),
		"raw":    namer.NewRawNamer("", nil),
	}
}

// validationTags is validation-gen's tag registry. The validators package keeps it, and the
// state its tags gather while types are walked, in process globals that it expects to be
// initialised once per process (validation-gen runs once and exits): the registry keeps a
// pointer to the gengo context and the package map it was initialised with, and the tags'
// state is keyed by the walk's field paths. So there is one registry per process, runs take
// turns, each run copies its context and packages into the ones the registry points to, and
// each run's paths start with a prefix of its own, so no run sees another's state.
var validationTags struct {
	sync.Mutex
	extractor validators.ValidationExtractor
	context   generator.Context
	canonical map[string]string
	runs      int
}

// startValidationRun points the registry at this run's context and packages and returns it
// with the run's path prefix. The caller holds validationTags' lock.
func startValidationRun(c *generator.Context, canonical map[string]string) (validators.ValidationExtractor, string) {
	validationTags.context = *c
	if validationTags.canonical == nil {
		validationTags.canonical = map[string]string{}
	}
	clear(validationTags.canonical)
	maps.Copy(validationTags.canonical, canonical)
	initValidationTags()
	validationTags.runs++
	return validationTags.extractor, fmt.Sprintf("apigenrun%d:", validationTags.runs)
}

// initValidationTags initialises the registry once per process, pointing it at validationTags'
// context and packages. The caller holds validationTags' lock.
func initValidationTags() {
	if validationTags.canonical == nil {
		validationTags.canonical = map[string]string{}
	}
	if validationTags.extractor == nil {
		validationTags.extractor = validators.InitGlobalValidator(&validationTags.context, validationTags.canonical)
	}
}

// ValidationTagDocs documents every +k8s: validation tag, sorted by name: validation-gen's
// validators' own docs (what kube.Validation gives each tag its meaning from), and the
// subresource tags of validation-gen's main package, with what they do here
// (checkSubresourceTags).
func ValidationTagDocs() []validators.TagDoc {
	validationTags.Lock()
	defer validationTags.Unlock()
	initValidationTags()
	docs := append(validationTags.extractor.Docs(),
		validators.TagDoc{
			Tag:            supportsSubresourceTag,
			StabilityLevel: validators.TagStabilityLevelStable,
			Scopes:         []validators.Scope{validators.ScopeType},
			Description: "Registers a kind's rules for writes through the subresource named too. apigen registers " +
				"them for every subresource the kind serves, so this tag is not needed; one naming a subresource " +
				"the kind does not serve is a warning.",
			Payloads:         []validators.TagPayloadDoc{{Description: "<subresource path>", Docs: `"/status", "/scale", ...`}},
			PayloadsType:     codetags.ValueTypeString,
			PayloadsRequired: true,
		},
		validators.TagDoc{
			Tag:            isSubresourceTag,
			StabilityLevel: validators.TagStabilityLevelStable,
			Scopes:         []validators.Scope{validators.ScopeType},
			Description: "Says a type is the body of a subresource (extensions/v1beta1's Scale). No effect in apigen, " +
				"with a warning: the rules of the kinds it serves run, and /scale reads and writes an autoscaling/v1 Scale.",
			Payloads:         []validators.TagPayloadDoc{{Description: "<subresource path>", Docs: `"/scale", ...`}},
			PayloadsType:     codetags.ValueTypeString,
			PayloadsRequired: true,
		})
	slices.SortFunc(docs, func(a, b validators.TagDoc) int { return strings.Compare(a.Tag, b.Tag) })
	return docs
}

// validationTargets walks the kinds of every version package and returns a target for each
// package that has rules to run. registered gets the kinds whose rules RegisterValidations adds.
// shared are the project's other packages whose types the version packages use.
func validationTargets(c *generator.Context, pkgs, shared []string, kinds map[string][]*types.Type, subresources map[*types.Type][]string, installed map[string]bool, registered map[*types.Type]bool, notes *validationNotes, pos func(*types.Type, string) token.Position) ([]generator.Target, error) {
	canonical := map[string]string{}
	for _, p := range pkgs {
		canonical[p] = p
	}
	// The Kubernetes types a kind uses (a PodTemplateSpec) carry rules of their own, which
	// kube-apiserver runs inside the built-in types that use them; k8s.io/api has no
	// Validate_ functions, so each version package gets its own copy of the ones it needs, as
	// k8s.io/kubernetes generates them for its internal packages (+k8s:validation-gen-input).
	external := map[string]bool{}
	for path := range c.Universe {
		if strings.HasPrefix(path, "k8s.io/api/") {
			canonical[path], external[path] = path, true
		}
	}
	// So do the types of the project's other packages (pkg/apis/shared), which have no
	// Validate_ functions of their own either: apigen generates only into version packages.
	for _, path := range shared {
		canonical[path], external[path] = path, true
	}
	extractor, prefix := startValidationRun(c, canonical)
	d := &discoverer{
		extractor: extractor,
		included:  canonical,
		external:  external,
		aliases:   packageAliases(slices.Collect(maps.Keys(external))),
		prefix:    prefix,
		pos:       pos,
		notes:     notes,
		universe:  c.Universe,
		consts:    map[*types.Type][]*validators.Constant{},
		nodes:     map[*types.Type]*vnode{},
	}
	for _, p := range slices.Sorted(maps.Keys(canonical)) {
		d.addConstants(c.Universe[p])
	}
	for _, p := range pkgs {
		for _, t := range kinds[p] {
			if _, err := d.discover(t, d.root(t)); err != nil {
				d.report(err)
			}
		}
	}
	if err := validators.VerifyCustomValidationsHaveTags(); err != nil {
		d.errs.Add(token.Position{}, "%v", err)
	}
	if len(d.errs) > 0 {
		return nil, d.errs.Err()
	}
	var targets []generator.Target
	for _, p := range pkgs {
		g := &validationFile{
			GoGenerator:  generator.GoGenerator{OutputFilename: ValidationsFile},
			pkg:          p,
			d:            d,
			imports:      generator.NewImportTrackerForPackage(p),
			subresources: subresources,
			installed:    installed[p],
		}
		for _, t := range kinds[p] {
			if d.hasValidations(d.nodes[t]) {
				g.kinds = append(g.kinds, t)
				registered[t] = true
			}
		}
		if !g.hasContent(c.Universe[p]) {
			continue
		}
		pkg := c.Universe[p]
		targets = append(targets, &generator.SimpleTarget{
			PkgName: pkg.Name,
			PkgPath: pkg.Path,
			PkgDir:  pkg.Dir,
			FilterFunc: func(_ *generator.Context, t *types.Type) bool {
				return t.Name.Package == p
			},
			GeneratorsFunc: func(*generator.Context) []generator.Generator { return []generator.Generator{g} },
		})
	}
	return targets, nil
}

// discoverer builds the graph of the types reachable from the kinds, with the validations
// validation-gen's tags give each type, field, list element and map key.
type discoverer struct {
	extractor validators.ValidationExtractor
	// included maps each package whose types are walked to itself (validation-gen's
	// canonical package, where it looks for hand-written ValidateCustom_ functions).
	included map[string]string
	// external are the included packages other than the version packages (k8s.io/api's, and
	// the project's others), whose Validate_ functions each version package that uses them
	// declares for itself.
	external map[string]bool
	// aliases name the external packages in the identifiers of their copies (packageAliases).
	aliases map[string]string
	// prefix starts every path of this run (see validationTags).
	prefix string
	// pos is where a type, or a field of it, is declared.
	pos func(t *types.Type, member string) token.Position
	// errs are the fields whose tags validation-gen refused; the walk goes on past them.
	errs model.ErrorList
	// notes are what the run tells the user about.
	notes    *validationNotes
	universe types.Universe
	consts   map[*types.Type][]*validators.Constant
	nodes    map[*types.Type]*vnode
}

// vnode is a type (never a pointer) in the graph.
type vnode struct {
	t          *types.Type
	fn         types.Name // Validate_<Type>, for a named type of an included package
	referenced bool       // used by another type of the graph
	fields     []*vchild  // a struct's
	key, elem  *vchild    // a map's key, a map's or a list's element
	underlying *vchild    // a defined type's

	typeVals, typeKeyIters, typeValIters validators.Validations
}

// vchild is a type as another uses it: a struct field, an element, a key.
type vchild struct {
	name, json string      // a field's Go and JSON names
	t          *types.Type // as declared (may be a pointer)
	node       *vnode      // nil for a type outside the walk (opaque)

	vals, keyIters, valIters validators.Validations
}

func (d *discoverer) root(t *types.Type) *field.Path {
	return field.NewPath(d.prefix + t.Name.String())
}

// declError is a failure at a type's declaration or one of its fields'.
type declError struct {
	t      *types.Type
	member string
	err    error
}

func (e *declError) Error() string {
	if e.member != "" {
		return fmt.Sprintf("%s.%s: %v", e.t.Name.Name, e.member, e.err)
	}
	return fmt.Sprintf("%s: %v", e.t.Name.Name, e.err)
}

// report adds an error of the walk at the declaration it concerns, without the run's prefix.
func (d *discoverer) report(err error) {
	var at token.Position
	if de, ok := err.(*declError); ok {
		at = d.pos(de.t, de.member)
	}
	d.errs.Add(at, "%s", strings.ReplaceAll(err.Error(), d.prefix, ""))
}

// declPos is where a type, or a field of it when member is not empty, is declared: from the
// load's type information, which gengo keeps (the syntax is gone by the time generators run).
func declPos(ctx *engine.LoadContext, t *types.Type, member string) token.Position {
	named, ok := t.GoType.(*gotypes.Named)
	if !ok {
		return token.Position{}
	}
	p := named.Obj().Pos()
	if st, ok := named.Underlying().(*gotypes.Struct); ok && member != "" {
		for i := range st.NumFields() {
			if f := st.Field(i); f.Name() == member {
				p = f.Pos()
			}
		}
	}
	at := ctx.Load.Fset.Position(p)
	if rel, err := filepath.Rel(ctx.Load.Root, at.Filename); err == nil && filepath.IsAbs(at.Filename) {
		at.Filename = filepath.ToSlash(rel)
	}
	return at
}

// optionTag is a rule's condition on a validation option.
var optionTag = regexp.MustCompile(`\+k8s:(ifEnabled|ifDisabled)\(\s*"?([^")]*)"?\s*\)`)

// recordOptions records the validation options the tags in comments depend on.
func (d *discoverer) recordOptions(comments []string, t *types.Type, member string) {
	for _, line := range comments {
		for _, m := range optionTag.FindAllStringSubmatch(line, -1) {
			d.notes.options[m[2]] = append(d.notes.options[m[2]], d.pos(t, member))
		}
	}
}

// addConstants records the constants of a package by type, with their tags (enum values).
func (d *discoverer) addConstants(pkg *types.Package) {
	if pkg == nil {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(pkg.Constants)) {
		cnst := pkg.Constants[name]
		vctx := validators.Context{Scope: validators.ScopeConst, Type: cnst.Underlying}
		found, err := d.extractor.ExtractTags(vctx, cnst.CommentLines)
		if err == nil && len(found) > 0 {
			_, err = d.extractor.ExtractValidations(vctx, found...)
		}
		if err != nil {
			d.report(&declError{t: cnst, err: err})
			continue
		}
		d.consts[cnst.Underlying] = append(d.consts[cnst.Underlying], &validators.Constant{Constant: cnst, Tags: found})
	}
}

// supported says whether the walk can generate code for values of t. Types it cannot (fixed
// arrays, maps with non-string keys, pointers to lists, ...) are opaque unless a tag asks for
// a rule on them, which is then an error.
func supported(t *types.Type) error {
	switch t.Kind {
	case types.Builtin, types.Struct, types.Interface:
		return nil
	case types.Alias:
		if t.Underlying.Kind == types.Pointer {
			return fmt.Errorf("typedefs to pointers are not supported")
		}
	case types.Pointer:
		switch vgutil.NativeType(t.Elem).Kind {
		case types.Pointer, types.Slice, types.Array, types.Map:
			return fmt.Errorf("pointers to pointers, lists and maps are not supported")
		}
	case types.Array:
		return fmt.Errorf("fixed-size arrays are not supported")
	case types.Slice:
		switch elem := vgutil.NativeType(t.Elem); elem.Kind {
		case types.Slice:
			if vgutil.NativeType(elem.Elem) != types.Byte {
				return fmt.Errorf("lists of lists are not supported")
			}
		case types.Map:
			return fmt.Errorf("lists of maps are not supported")
		}
	case types.Map:
		if vgutil.NativeType(t.Key) != types.String {
			return fmt.Errorf("maps with non-string keys are not supported")
		}
		switch vgutil.NativeType(t.Elem).Kind {
		case types.Pointer, types.Map:
			return fmt.Errorf("maps of pointers or maps are not supported")
		}
	default:
		return fmt.Errorf("kind %v is not supported", t.Kind)
	}
	return nil
}

// discover walks t (reached at path) and returns its node; nil for a type outside the walk.
func (d *discoverer) discover(t *types.Type, path *field.Path) (*vnode, error) {
	if t.Name.Package != "" {
		if _, ok := d.included[t.Name.Package]; !ok {
			return nil, nil
		}
	}
	if supported(t) != nil {
		return nil, nil
	}
	if t.Kind == types.Pointer {
		return d.discover(t.Elem, path)
	}
	if n, ok := d.nodes[t]; ok {
		return n, nil
	}
	n := &vnode{t: t}
	d.nodes[t] = n
	if t.Kind == types.Alias || t.Kind == types.Struct {
		path = d.root(t) // a named type's rules belong to the type, not to where it was reached
		n.fn = types.Name{Package: t.Name.Package, Name: "Validate_" + t.Name.Name}
	}
	var err error
	switch t.Kind {
	case types.Alias:
		n.underlying, err = d.child(t.Underlying, path)
	case types.Struct:
		err = d.discoverStruct(n, path)
	case types.Slice:
		n.elem, err = d.child(t.Elem, path.Key("vals"))
	case types.Map:
		if n.key, err = d.child(t.Key, path.Key("keys")); err == nil {
			n.elem, err = d.child(t.Elem, path.Key("vals"))
		}
	}
	if err != nil {
		return nil, err
	}
	if t.Kind == types.Alias || t.Kind == types.Struct {
		d.recordOptions(t.CommentLines, t, "")
		vctx := validators.Context{Scope: validators.ScopeType, Type: t, Path: path, Constants: d.consts[t]}
		vals, err := d.validations(vctx, t.CommentLines)
		if err != nil {
			return nil, &declError{t: t, err: err}
		}
		if !vals.Empty() && mapOfSlices(t) {
			return nil, &declError{t: t, err: fmt.Errorf("validation for map of slices is not supported")}
		}
		n.typeVals.Add(vals)
		if t.Kind == types.Alias {
			native := vgutil.NonPointer(vgutil.NativeType(t))
			if err := d.iterations(path, t, native, n.resolveKey(), n.resolveElem(), n.typeVals, &n.typeKeyIters, &n.typeValIters); err != nil {
				return nil, &declError{t: t, err: err}
			}
		}
	}
	deferred := n.typeVals.Deferred
	n.typeVals.Deferred = nil
	err = resolveDeferred(deferred, func(scope validators.DeferredScope, v validators.Validations) error {
		if scope != validators.ThisContext && scope != validators.ParentContext {
			return fmt.Errorf("unexpected scope %v", scope)
		}
		n.typeVals.Add(v)
		return nil
	})
	if err != nil {
		return nil, &declError{t: t, err: err}
	}
	return n, nil
}

func mapOfSlices(t *types.Type) bool {
	native := vgutil.NonPointer(vgutil.NativeType(t))
	return native.Kind == types.Map && native.Elem.Kind == types.Slice
}

// child discovers a type reached from another.
func (d *discoverer) child(t *types.Type, path *field.Path) (*vchild, error) {
	n, err := d.discover(t, path)
	if n != nil {
		n.referenced = true
	}
	return &vchild{t: t, node: n}, err
}

// validations extracts the validations the tags in comments give a context.
func (d *discoverer) validations(vctx validators.Context, comments []string) (validators.Validations, error) {
	comments = d.withoutMissingHandWritten(comments, vctx)
	found, err := d.extractor.ExtractTags(vctx, comments)
	if err != nil || len(found) == 0 {
		return validators.Validations{}, err
	}
	return d.extractor.ExtractValidations(vctx, found...)
}

// withoutMissingHandWritten drops +k8s:customValidation from comments when the hand-written
// function it calls (ValidateCustom_<Type>[_<Field>], in the type's package) does not exist,
// and notes it for a warning: a Kubernetes type's is kube-apiserver's own, in k8s.io/kubernetes,
// which the generated server cannot call; a project's is the user's to write (a copy of a
// k8s.io/api package has none). validation-gen would stop the run.
func (d *discoverer) withoutMissingHandWritten(comments []string, vctx validators.Context) []string {
	owner, fn := vctx.Type, "ValidateCustom_"+vctx.Type.Name.Name
	if vctx.Member != nil {
		owner, fn = vctx.ParentType, "ValidateCustom_"+vctx.ParentType.Name.Name+"_"+vctx.Member.Name
	}
	var out []string
	for _, line := range comments {
		if !strings.Contains(line, "+k8s:customValidation") {
			out = append(out, line)
			continue
		}
		pkg := d.universe[owner.Name.Package]
		switch {
		case strings.HasPrefix(owner.Name.Package, "k8s.io/api/"):
			where := owner.Name.String()
			if vctx.Member != nil {
				where += "." + vctx.Member.Name
			}
			d.notes.handWritten[where] = true
		case pkg != nil && pkg.Functions[fn] != nil:
			out = append(out, line) // validation-gen checks its signature
		default:
			member := ""
			if vctx.Member != nil {
				member = vctx.Member.Name
			}
			d.notes.missing = append(d.notes.missing, missingFunction{d.pos(owner, member), fn})
		}
	}
	return out
}

// iterations adds the calls of the element and key types' own Validate_ functions for each
// element and key of a list or map (t, whose native type is native), unless the tags made
// them opaque.
func (d *discoverer) iterations(path *field.Path, t, native *types.Type, key, elem *vnode, vals validators.Validations, keyIters, valIters *validators.Validations) error {
	each := func(n *vnode, opaque bool, fn, comment string, forEach func(*field.Path, *types.Type, validators.FunctionGen) (validators.Validations, error), into *validators.Validations) error {
		if n == nil || opaque || n.fn.Name == "" {
			return nil
		}
		v, err := forEach(path, t, validators.Function(fn, validators.DefaultFlags, n.fn).WithComment(comment))
		if err != nil {
			return err
		}
		into.Add(v)
		return nil
	}
	switch native.Kind {
	case types.Slice:
		return each(elem, vals.OpaqueValType, "iterateListValues", "iterate the list and call the type's validation function", validators.ForEachVal, valIters)
	case types.Map:
		if err := each(key, vals.OpaqueKeyType, "iterateMapKeys", "iterate the map and call the key type's validation function", validators.ForEachKey, keyIters); err != nil {
			return err
		}
		return each(elem, vals.OpaqueValType, "iterateMapValues", "iterate the map and call the value type's validation function", validators.ForEachVal, valIters)
	}
	return nil
}

func (n *vnode) resolveElem() *vnode {
	switch {
	case n == nil:
		return nil
	case n.elem != nil:
		return n.elem.node
	case n.underlying != nil && n.underlying.node != nil && n.underlying.node.elem != nil:
		return n.underlying.node.elem.node
	}
	return nil
}

func (n *vnode) resolveKey() *vnode {
	switch {
	case n == nil:
		return nil
	case n.key != nil:
		return n.key.node
	case n.underlying != nil && n.underlying.node != nil && n.underlying.node.key != nil:
		return n.underlying.node.key.node
	}
	return nil
}

// discoverStruct walks the exported fields of a struct.
func (d *discoverer) discoverStruct(n *vnode, path *field.Path) error {
	for i := range n.t.Members {
		m := &n.t.Members[i]
		if unicode.IsLower([]rune(m.Name)[0]) {
			continue
		}
		jsonName := ""
		if jt, ok := tags.LookupJSON(*m); ok {
			jsonName = jt.Name
		}
		childPath := path.Child(m.Name)
		if jsonName != "" {
			childPath = path.Child(jsonName)
		}
		c, err := d.child(m.Type, childPath)
		if err != nil {
			return err
		}
		c.name, c.json = m.Name, jsonName
		vctx := validators.Context{Scope: validators.ScopeField, Type: m.Type, Path: childPath, Member: m, ParentPath: path, ParentType: n.t}
		fail := func(err error) error { return &declError{t: n.t, member: m.Name, err: err} }
		d.recordOptions(m.CommentLines, n.t, m.Name)
		vals, err := d.validations(vctx, m.CommentLines)
		if err == nil && !vals.Empty() {
			if err = supported(m.Type); err == nil && mapOfSlices(m.Type) {
				err = fmt.Errorf("validation for map of slices is not supported")
			}
		}
		if err != nil {
			d.report(fail(err)) // and on to the other fields, to report them all
			continue
		}
		c.vals.Add(vals)
		if c.vals.OpaqueType {
			c.node = nil
		}
		if m.Type.Kind == types.Slice || m.Type.Kind == types.Map {
			key, elem := d.fieldKeyElem(c)
			if err := d.iterations(childPath, m.Type, m.Type, key, elem, c.vals, &c.keyIters, &c.valIters); err != nil {
				return fail(err)
			}
		}
		n.fields = append(n.fields, c)
	}
	for _, c := range n.fields {
		deferred := c.vals.Deferred
		c.vals.Deferred = nil
		err := resolveDeferred(deferred, func(scope validators.DeferredScope, v validators.Validations) error {
			switch scope {
			case validators.ThisContext:
				c.vals.Add(v)
			case validators.ParentContext:
				n.typeVals.Add(v) // a rule over several fields (a union) belongs to the struct
			default:
				return fmt.Errorf("unexpected scope %v", scope)
			}
			return nil
		})
		if err != nil {
			return &declError{t: n.t, member: c.name, err: err}
		}
	}
	return nil
}

// fieldKeyElem are the nodes of a list or map field's key and element types; for a type still
// being walked (a recursive type) they come from the nodes seen so far.
func (d *discoverer) fieldKeyElem(c *vchild) (key, elem *vnode) {
	if c.node != nil && c.node.elem != nil {
		elem = c.node.elem.node
	} else {
		elem = d.nodes[c.t.Elem]
	}
	if c.t.Kind == types.Map {
		if c.node != nil && c.node.key != nil {
			key = c.node.key.node
		} else {
			key = d.nodes[c.t.Key]
		}
	}
	return key, elem
}

// resolveDeferred runs validations that tags deferred until the whole type was seen, and the
// ones those defer in turn.
func resolveDeferred(deferred []validators.DeferredGen, add func(validators.DeferredScope, validators.Validations) error) error {
	for depth := 0; len(deferred) > 0; depth++ {
		if depth == 10 {
			return fmt.Errorf("deferred validations nested more than 10 deep")
		}
		var next []validators.DeferredGen
		for _, def := range deferred {
			v, err := def.Callback()
			if err != nil {
				return err
			}
			next = append(next, v.Deferred...)
			v.Deferred = nil
			if err := add(def.Scope, v); err != nil {
				return err
			}
		}
		deferred = next
	}
	return nil
}

// hasValidations says whether n, or anything it contains, has a rule to run.
func (d *discoverer) hasValidations(n *vnode) bool { return d.has(n, map[*vnode]bool{}) }

func (d *discoverer) has(n *vnode, seen map[*vnode]bool) bool {
	if n == nil || seen[n] {
		return false
	}
	seen[n] = true
	if n.typeVals.HasEmitable() {
		return true
	}
	if n.typeVals.OpaqueType {
		return false
	}
	if n.underlying != nil {
		if n.typeKeyIters.HasEmitable() && d.has(n.resolveKey(), seen) ||
			n.typeValIters.HasEmitable() && d.has(n.resolveElem(), seen) ||
			d.has(n.underlying.node, seen) {
			return true
		}
	}
	for _, c := range n.fields {
		if c.vals.HasEmitable() ||
			c.keyIters.HasEmitable() && d.has(c.node.resolveKey(), seen) ||
			c.valIters.HasEmitable() && d.has(c.node.resolveElem(), seen) ||
			d.has(c.node, seen) {
			return true
		}
	}
	return false
}
