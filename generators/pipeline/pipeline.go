// Package pipeline is apigen's one direction of work: load, model, emit. It returns the
// generated files in memory; writing them is the caller's business.
package pipeline

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"

	"github.com/apigen-dev/apigen/generators/docs"
	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/golang"
	"github.com/apigen-dev/apigen/generators/kube"
	"github.com/apigen-dev/apigen/generators/loader"
	"github.com/apigen-dev/apigen/generators/manifests"
	"github.com/apigen-dev/apigen/generators/model"
	"github.com/apigen-dev/apigen/generators/parse"
	"github.com/apigen-dev/apigen/generators/protobuf"
	"github.com/apigen-dev/apigen/generators/scaffold"
	"github.com/apigen-dev/apigen/generators/schema"
)

// Upstream are the generators that read the load: the upstream Kubernetes generators, then
// apigen's protobuf generator (which reads the load's types too), in this order (conversion-gen
// and openapi-gen read the defaults defaulter-gen's step tags). Besides their files they fill
// the model facts only they can know: which kinds have object defaulters
// (Resource.ObjectDefaulter) and declarative validation (Resource.DeclarativeValidation), and
// what conversions without conversion code drop (Project.ConversionDrops). They run before
// the model is validated.
func Upstream() []engine.Upstream {
	return []engine.Upstream{
		kube.DeepCopy(),
		kube.Defaulter(),
		kube.Validation(),
		kube.Conversion(),
		kube.OpenAPI(),
		kube.Clients(),
		protobuf.New(),
	}
}

// Emitters are apigen's own: each reads the complete, validated model and nothing else (an
// engine.Context holds no load), so they may run in any order (TestEmittersInAnyOrder).
func Emitters() []engine.Generator {
	return []engine.Generator{
		golang.Register(),
		golang.Install(),
		golang.RoundTrip(),
		golang.Storage(),
		golang.APIServer(),
		golang.Server(),
		scaffold.StorageStubs(),
		manifests.New(),
		docs.Generator(),
	}
}

// DefaultHeaderFile is the project's license boilerplate, written by apigen init.
const DefaultHeaderFile = "hack/boilerplate.go.txt"

// Options tune a run.
type Options struct {
	// HeaderFile is the boilerplate put at the top of every generated Go file, relative to the
	// project root; empty means DefaultHeaderFile when it exists.
	HeaderFile string
	// Year replaces YEAR in the boilerplate; empty leaves it as written.
	Year string
	// ScaffoldConversions plans stubs of the conversion functions conversion-gen leaves to
	// the user instead of failing on them (see engine.LoadContext).
	ScaffoldConversions bool
	// StdCache has the load read the standard library's types from the go build cache's
	// export data (loader.Options.StdCache); nil, the default, loads them from source.
	StdCache *loader.StdCache
	// Without turns pieces of the load's speed machinery off (loader.Options.Without), for the
	// benchmark that measures them; the output is the same.
	Without loader.Without
}

// Result is one run: the model and the files it generates.
type Result struct {
	Root    string
	Project *model.Project
	Output  *engine.Output
	// Reads are the files the run read, with what each held (see loader.Reads).
	Reads map[string]string
}

// Run loads the project at root once, builds and validates the model and runs every generator.
func Run(root string, o Options) (*Result, error) {
	return fromStdCache(root, loader.Options{StdCache: o.StdCache, Without: o.Without}, func(load *loader.Result) (*Result, error) { return Generate(load, o) })
}

// fromStdCache loads the project at root and runs work on the load. When the load read a
// standard library package from export data that the run then read more of than its types
// (loader.Result.StdTouched), the load is done again with those packages from source
// (loader.Options.Previous), and from source altogether should that load read too little
// too, which cannot tell a different story. The load itself reads the packages the API types
// refer to (gengo processes them fully), so a load that read one of those from export data is
// done again before work runs on it. first is the first load's options; the loads again keep
// them.
func fromStdCache[T any](root string, first loader.Options, work func(*loader.Result) (T, error)) (T, error) {
	var zero T
	load, err := load(root, first)
	for again := 0; ; again++ {
		if err != nil {
			return zero, err
		}
		if len(load.StdTouched()) == 0 {
			out, workErr := work(load)
			if len(load.StdTouched()) == 0 {
				return out, workErr
			}
		}
		o := first
		o.Previous, o.FromSource = load, again > 0
		load, err = loader.Run(root, o)
	}
}

// Load is the run's one read of the user's source: the project at root, loaded. The standard
// library's types may come from export data (cache; nil: from source): whoever uses the load
// beyond the model checks load.StdTouched when done (see Run).
func Load(root string, cache *loader.StdCache) (*loader.Result, error) {
	return load(root, loader.Options{StdCache: cache})
}

// load is Load with the loader's options.
func load(root string, o loader.Options) (*loader.Result, error) {
	if err := checkAPIDir(root); err != nil {
		return nil, err
	}
	return loader.Run(root, o)
}

// Generate builds and validates the model of a load and runs every generator. It reads no
// source of the user's: everything comes from the load.
func Generate(load *loader.Result, o Options) (*Result, error) {
	return generate(load, o, Emitters())
}

// generate is Generate with the emitters given: the upstream generators read the load and
// complete the model with the facts only their runs know, the complete model is validated,
// and the emitters read it and nothing else.
func generate(load *loader.Result, o Options, emitters []engine.Generator) (*Result, error) {
	header, err := readHeader(load, o.HeaderFile)
	if err != nil {
		return nil, err
	}
	project, parsed, err := build(load)
	if err != nil {
		return nil, err
	}
	lctx := &engine.LoadContext{
		Context:             engine.Context{Project: project, GoHeader: engine.GoHeader(header, o.Year)},
		Load:                load,
		ScaffoldConversions: o.ScaffoldConversions,
	}
	out, genErr := engine.RunUpstream(lctx, Upstream())
	// The model's own problems come first, then the project's requirements, then what the
	// generators found.
	if err := validate(project, parsed); err != nil {
		return nil, err
	}
	if err := checkRequirements(load, project); err != nil {
		return nil, err
	}
	ctx := &lctx.Context
	if genErr == nil {
		genErr = engine.RunInto(out, ctx, emitters)
	}
	if warnings := append(project.Warnings, ctx.Warnings...).Err(); warnings != nil {
		project.Warnings = warnings.(model.ErrorList)
	}
	if genErr != nil {
		return nil, withWarnings(genErr, project.Warnings)
	}
	if err := avoidImportNames(project, out); err != nil {
		return nil, withWarnings(err, project.Warnings)
	}
	// What an earlier run generated in the API packages is looked for where the layout keeps
	// them, even in a version this run generates nothing for.
	for _, dir := range load.APIDirs() {
		if err := out.Own(dir); err != nil {
			return nil, err
		}
	}
	return &Result{Root: load.Root, Project: project, Output: out, Reads: load.Reads.Files()}, nil
}

// checkRequirements holds the project's go.mod to the module versions the generated code is
// built for (scaffold.CheckRequirements): a project that upgraded apigen and not its
// dependencies learns the go get to run before anything is written.
func checkRequirements(load *loader.Result, project *model.Project) error {
	data, err := load.Reads.ReadFile(filepath.Join(load.Root, "go.mod"))
	if err != nil {
		return err
	}
	errs, warnings := scaffold.CheckRequirements("go.mod", data)
	if project.SQL {
		errs = append(errs, scaffold.CheckSQLRequirement("go.mod", data)...)
	}
	project.Warnings = append(project.Warnings, warnings...)
	if errs != nil {
		return withWarnings(errs.Err(), project.Warnings)
	}
	return nil
}

// Failure is the error of a run that failed after it found warnings: a run that fails
// reports its warnings too (a warning may well explain the error), each once. Err is the
// failure, still in the chain for errors.As (a *kube.MissingConversions); Warnings are the
// warnings it does not list itself (parse.Project and schema.Build list theirs among their
// errors).
type Failure struct {
	Err      error
	Warnings model.ErrorList
}

// Error lists the warnings among the errors by position when the failure is positioned (a
// model.ErrorList), and before it otherwise.
func (f *Failure) Error() string {
	var list model.ErrorList
	if errors.As(f.Err, &list) {
		return append(slices.Clone(list), f.Warnings...).Err().Error()
	}
	return f.Warnings.Error() + "\n" + f.Err.Error()
}

func (f *Failure) Unwrap() error { return f.Err }

// withWarnings returns err with the warnings it does not already list, as a *Failure; err
// itself when it lists them all.
func withWarnings(err error, warnings model.ErrorList) error {
	var listed model.ErrorList
	errors.As(err, &listed)
	var missing model.ErrorList
	for _, w := range warnings {
		if !slices.ContainsFunc(listed, func(e *model.Error) bool { return *e == *w }) {
			missing = append(missing, w)
		}
	}
	if len(missing) == 0 {
		return err
	}
	return &Failure{Err: err, Warnings: missing.Err().(model.ErrorList)}
}

// Model loads the project at root and builds and validates its model, without generating:
// the model lacks the facts only the upstream generators' runs know (see Upstream).
// Go type errors of the API packages fail it too, reported with every error the model has.
// The standard library's types come from export data as in Run (cache; nil: from source).
func Model(root string, cache *loader.StdCache) (*loader.Result, *model.Project, error) {
	type loaded struct {
		load    *loader.Result
		project *model.Project
	}
	out, err := fromStdCache(root, loader.Options{StdCache: cache}, func(load *loader.Result) (loaded, error) {
		project, parsed, err := build(load)
		if err == nil {
			err = validate(project, parsed)
		}
		return loaded{load, project}, err
	})
	if err != nil {
		return nil, nil, err
	}
	return out.load, out.project, nil
}

// build builds the model of a load, schemas included, and lets the load's syntax go. It
// returns the model unvalidated, with the parser's warnings, for validate once the upstream
// generators have completed it; a model it cannot complete (type errors, schemas that cannot
// be built) is validated here, its problems reported first.
func build(load *loader.Result) (project *model.Project, parsed model.ErrorList, err error) {
	project, err = parse.Project(load)
	if len(load.TypeErrors) > 0 {
		// Type errors stop the run before the schemas: the model's problems are reported
		// beside them.
		var warnings model.ErrorList
		if err == nil {
			if err = validate(project, project.Warnings); err == nil {
				warnings = project.Warnings
			}
		}
		return nil, nil, withWarnings(withTypeErrors(load.TypeErrors, err), warnings)
	}
	if err != nil {
		return nil, nil, err
	}
	parsed = slices.Clone(project.Warnings)
	if built := schema.Build(load, project); built != nil {
		// The model's own problems come first: a run that fails them reports them with the
		// parser's warnings, and not what the schemas of a model that cannot be served say.
		if err := validate(project, parsed); err != nil {
			return nil, nil, err
		}
		return nil, nil, withWarnings(built, project.Warnings)
	}
	load.ReleaseSyntax()
	return project, parsed, nil
}

// validate validates a complete model, and returns its problems with warnings among them by
// position: a warning may well explain an error.
func validate(project *model.Project, warnings model.ErrorList) error {
	if err := project.Validate(); err != nil {
		return append(err.(model.ErrorList), warnings...).Err()
	}
	return nil
}

// avoidImportNames renames the imports of every generated file in an API package whose names
// the package declares itself (the upstream generators import runtime, a name a user's
// package may well declare).
func avoidImportNames(project *model.Project, out *engine.Output) error {
	paths := out.Paths()
	for _, g := range project.Groups {
		versions := slices.Clone(g.Versions)
		if g.Internal != nil {
			versions = append(versions, g.Internal)
		}
		for _, v := range versions {
			declared := func(name string) bool { _, ok := v.DeclPos[name]; return ok }
			for _, name := range paths {
				if path.Dir(name) != v.Dir || path.Ext(name) != ".go" {
					continue
				}
				src, _ := out.Get(name)
				renamed, err := engine.RenameImports(src, declared)
				if err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
				if err := out.Replace(name, renamed); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// checkAPIDir refuses a module without an API directory with what to do about it: without it
// there is nothing to generate, and the load would only say that a pattern matched no
// directory.
func checkAPIDir(root string) error {
	layout := loader.DetectLayout(root)
	if fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(layout.Dir))); err == nil && fi.IsDir() {
		return nil
	}
	where := layout.Dir + "/<group>/<version>"
	if layout.SingleGroup {
		where = layout.Dir + "/<version>"
	}
	return fmt.Errorf("%s has no %s directory, where apigen reads the API types (%s/*.go, by %s); "+
		"add a kind with \"apigen new-api --group <group> --version v1alpha1 --kind <Kind>\", "+
		"or scaffold the rest of a project here with \"apigen init --domain <domain>\"", root, layout.Dir, where, layout.Why)
}

// withTypeErrors joins type errors with the model's errors into one sorted list.
func withTypeErrors(typeErrs model.ErrorList, err error) error {
	var list model.ErrorList
	if err != nil && !errors.As(err, &list) {
		return err
	}
	return append(slices.Clone(typeErrs), list...).Err()
}

// HeaderPath is the file Run reads the boilerplate from for Options.HeaderFile name: name or
// DefaultHeaderFile, relative to root unless absolute. explicit is false for the default, which
// may be absent.
func HeaderPath(root, name string) (path string, explicit bool) {
	explicit = name != ""
	if !explicit {
		name = DefaultHeaderFile
	}
	if !filepath.IsAbs(name) {
		name = filepath.Join(root, name)
	}
	return name, explicit
}

func readHeader(load *loader.Result, name string) ([]byte, error) {
	name, explicit := HeaderPath(load.Root, name)
	b, err := load.Reads.ReadFile(name)
	if errors.Is(err, os.ErrNotExist) && !explicit {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the header file: %w", err)
	}
	return b, nil
}

// FindRoot returns the directory of the go.mod that governs dir, as the go command finds it.
func FindRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod in %s or any parent directory: run apigen init first", dir)
		}
	}
}
