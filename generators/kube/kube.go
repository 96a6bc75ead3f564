// Package kube runs the Kubernetes-standard generators (deepcopy-gen, defaulter-gen,
// conversion-gen, openapi-gen, the client generators, and validation-gen's validators under a
// walk of its own: validation.go) in process, over the one load every generator shares, and
// captures their files in memory.
//
// Each upstream generator runs on a shallow copy of the load's gengo context with its own
// inputs, canonical order and file types (an upstream generator given every package of the
// load would write into the module cache; openapi-gen mutates the file types). Their "go"
// file type is replaced: files are assembled with our header, formatted with go/format and
// added to the Output; nothing is written to disk and gofmt is never executed. The
// +k8s: tags the upstream generators need are injected into the universe for the duration
// of a run and removed afterwards; tags the user wrote are honoured. klog.Fatal and panics
// inside the upstream code become errors.
//
// The generators in this package must run one at a time (engine.Run does): they share the
// gengo universe and klog's global state. The upstream runs of different loads in one process
// take turns (guard).
package kube

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/go-logr/logr"
	"k8s.io/gengo/v2/generator"
	"k8s.io/gengo/v2/namer"
	"k8s.io/gengo/v2/types"
	"k8s.io/klog/v2"

	"github.com/apigen-dev/apigen/generators/engine"
	"github.com/apigen-dev/apigen/generators/loader"
	"github.com/apigen-dev/apigen/generators/model"
)

// upstream is one run of an upstream generator's targets function.
type upstream struct {
	// name is the upstream tool's name, for errors.
	name string
	// nameSystems and defaultNameSystem are the upstream package's, as its main passes them
	// to gengo.Execute.
	nameSystems       namer.NameSystems
	defaultNameSystem string
	// inputs become Context.Inputs (and the packages whose types are in Context.Order).
	inputs []string
	// dirs maps the import path of every package the run may write a file for to the
	// project-relative directory of that file. A file for any other package is an error.
	dirs map[string]string
	// under maps an import path to a project-relative directory for every package in or
	// below it (the clients, whose packages the targets function names).
	under map[string]string
	// ignoredFileTypes are non-Go file types the targets function registers whose files are
	// dropped (openapi-gen's API rule violation report).
	ignoredFileTypes []string
	// targets is the upstream GetTargets-style function.
	targets func(*generator.Context) []generator.Target
	// universe, if set, narrows the universe the run sees (a new map; the load's is
	// never changed). It must keep every package the run reads.
	universe func(u types.Universe, inputs []string) types.Universe
}

// run executes u over the load in ctx and adds the files it produced to out, in path order.
func run(ctx *engine.LoadContext, out *engine.Output, u upstream) error {
	files := newGoFiles(u.name, ctx.GoHeader, u.dirs, u.under)

	c := *ctx.Load.Context // pitfall 1: one context per load, a shallow copy per generator
	c.Namers = maps.Clone(u.nameSystems)
	c.Inputs = slices.Clone(u.inputs)
	if u.universe != nil {
		c.Universe = u.universe(c.Universe, u.inputs)
	}
	c.Order = order(c.Universe, u.inputs, u.nameSystems[u.defaultNameSystem])
	c.FileTypes = map[string]generator.FileType{generator.GoFileType: files}

	err := guard(u.name, func() error {
		targets := u.targets(&c)
		for ft := range c.FileTypes {
			switch {
			case ft == generator.GoFileType:
				c.FileTypes[ft] = files // in case the targets function replaced it
			case slices.Contains(u.ignoredFileTypes, ft):
				c.FileTypes[ft] = ignoredFile{}
			default:
				return fmt.Errorf("unexpected file type %q registered by %s", ft, u.name)
			}
		}
		// gengo creates each target's directory before it runs the target's generators.
		// Point it at the project root, which exists, so nothing is created: our file type
		// decides where a file goes from its package, not from this directory.
		inMemory := make([]generator.Target, len(targets))
		for i, t := range targets {
			inMemory[i] = targetIn{Target: t, dir: ctx.Load.Root}
		}
		return c.ExecuteTargets(inMemory)
	})
	if formatErr := files.wait(); err == nil {
		err = formatErr
	}
	if err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(files.files)) {
		if err := out.Add(name, files.files[name]); err != nil {
			return err
		}
	}
	return nil
}

// order is the canonical order of the types in the input packages, sorted by the generator's
// default name system as gengo's NewContext does for the whole universe; ties are broken by
// the full type name so that the order never depends on map iteration.
func order(u types.Universe, inputs []string, n namer.Namer) []*types.Type {
	var list []*types.Type
	for _, path := range inputs {
		pkg := u[path]
		if pkg == nil {
			continue
		}
		for _, m := range []map[string]*types.Type{pkg.Types, pkg.Functions, pkg.Variables, pkg.Constants} {
			for _, k := range slices.Sorted(maps.Keys(m)) {
				list = append(list, m[k])
			}
		}
	}
	names := make(map[*types.Type]string, len(list))
	for _, t := range list {
		names[t] = n.Name(t)
	}
	sort.SliceStable(list, func(i, j int) bool {
		if a, b := names[list[i]], names[list[j]]; a != b {
			return a < b
		}
		return list[i].Name.String() < list[j].Name.String()
	})
	return list
}

// targetIn runs a target with a different directory.
type targetIn struct {
	generator.Target
	dir string
}

func (t targetIn) Dir() string { return t.dir }

// goFiles is our "go" file type: it assembles a file as gengo's does, but with our header,
// formats it in memory and keeps it. Formatting (a third of an upstream generator's time on a
// large API) runs beside the generator, on the other cores, while gengo assembles the next
// file; wait collects the results.
type goFiles struct {
	name   string
	header []byte
	dirs   map[string]string
	under  map[string]string

	mu         sync.Mutex
	files      map[string][]byte
	formatErrs map[string]error
	formatting sync.WaitGroup
	slots      chan struct{} // one per core: formatting never queues more goroutines than cores
}

func newGoFiles(name string, header []byte, dirs, under map[string]string) *goFiles {
	return &goFiles{
		name: name, header: header, dirs: dirs, under: under,
		files:      map[string][]byte{},
		formatErrs: map[string]error{},
		slots:      make(chan struct{}, runtime.GOMAXPROCS(0)),
	}
}

// format formats a file's source on another goroutine and keeps the result.
func (g *goFiles) format(name string, src []byte) {
	g.slots <- struct{}{}
	g.formatting.Add(1)
	go func() {
		defer func() { <-g.slots; g.formatting.Done() }()
		out, err := engine.FormatGo(name, src)
		g.mu.Lock()
		defer g.mu.Unlock()
		g.files[name], g.formatErrs[name] = out, err
	}()
}

// wait waits for every file to be formatted and returns the first failure by path.
func (g *goFiles) wait() error {
	g.formatting.Wait()
	for _, name := range slices.Sorted(maps.Keys(g.formatErrs)) {
		if err := g.formatErrs[name]; err != nil {
			return err
		}
	}
	return nil
}

// dir is the project-relative directory of a generated package's files.
func (g *goFiles) dir(pkg string) (string, bool) {
	if dir, ok := g.dirs[pkg]; ok {
		return dir, true
	}
	for root, dir := range g.under {
		if rest, ok := strings.CutPrefix(pkg, root); ok && (rest == "" || rest[0] == '/') {
			return dir + rest, true
		}
	}
	return "", false
}

func (g *goFiles) AssembleFile(f *generator.File, _ string) error {
	dir, ok := g.dir(f.PackagePath)
	if !ok {
		return fmt.Errorf("%s wants to write %s for package %s, which it does not generate for", g.name, f.Name, f.PackagePath)
	}
	name := path.Join(dir, f.Name)
	g.mu.Lock()
	_, dup := g.files[name]
	g.files[name] = nil // taken
	g.mu.Unlock()
	if dup {
		return fmt.Errorf("%s writes %s twice", g.name, name)
	}

	var b bytes.Buffer
	b.Write(g.header) // f.Header is upstream's: its build tag, YEAR and os.Args[0] (pitfall 5)
	fmt.Fprintf(&b, "package %s\n\n", f.PackageName)
	if len(f.Imports) > 0 {
		b.WriteString("import (\n")
		for _, imp := range slices.Sorted(maps.Keys(f.Imports)) {
			if strings.Contains(imp, `"`) { // already `name "path"`
				fmt.Fprintf(&b, "\t%s\n", imp)
			} else {
				fmt.Fprintf(&b, "\t%q\n", imp)
			}
		}
		b.WriteString(")\n\n")
	}
	if f.Vars.Len() > 0 {
		fmt.Fprintf(&b, "var (\n%s)\n\n", f.Vars.Bytes())
	}
	if f.Consts.Len() > 0 {
		fmt.Fprintf(&b, "const (\n%s)\n\n", f.Consts.Bytes())
	}
	b.Write(f.Body.Bytes())

	// pitfall 9: gengo would exec gofmt when it is on PATH. This fails closed, with the
	// numbered source in the error (from wait).
	g.format(name, b.Bytes())
	return nil
}

// ignoredFile drops a file (openapi-gen's report of API rule violations, which it would
// otherwise print to stdout or write to a report file).
type ignoredFile struct{}

func (ignoredFile) AssembleFile(*generator.File, string) error { return nil }

// exitPanic is what klog.Fatal's exit turns into while an upstream generator runs.
type exitPanic struct{ code int }

// guard runs f with klog's output captured and its exit turned into a panic, and turns a
// panic into an error (pitfall 6: the upstream generators klog.Fatal or panic on input they
// dislike, which would otherwise end the process). klog's state is restored afterwards. It
// holds the loader's gengo lock throughout (loader.WithGengo): an upstream generator may walk
// types into the universe, and klog's state is the whole process's, so the upstream runs of
// two loads at once in one process take turns.
func guard(name string, f func() error) error {
	return loader.WithGengo(func() error { return guarded(name, f) })
}

func guarded(name string, f func() error) (err error) {
	state := klog.CaptureState()
	exit := klog.OsExit
	var logs bytes.Buffer
	klog.SetLogger(logr.New(logSink{&logs}))
	klog.OsExit = func(code int) { panic(exitPanic{code}) }
	defer func() {
		r := recover()
		klog.OsExit = exit
		state.Restore()
		switch r := r.(type) {
		case nil:
		case exitPanic:
			err = fmt.Errorf("%s failed%s", name, logTail(&logs))
		default:
			err = fmt.Errorf("%s panicked: %v%s", name, r, logTail(&logs))
		}
	}()
	if err := f(); err != nil {
		return fmt.Errorf("%s: %w%s", name, err, logTail(&logs))
	}
	return nil
}

// logTail returns the last lines upstream logged, to explain a failure.
func logTail(logs *bytes.Buffer) string {
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return ""
	}
	if len(lines) > 20 {
		lines = lines[len(lines)-20:]
	}
	return "\n" + strings.Join(lines, "\n")
}

// logSink collects klog's messages while an upstream generator runs.
type logSink struct{ w *bytes.Buffer }

func (s logSink) Init(logr.RuntimeInfo)                  {}
func (s logSink) Enabled(level int) bool                 { return level <= 0 }
func (s logSink) WithValues(...any) logr.LogSink         { return s }
func (s logSink) WithName(string) logr.LogSink           { return s }
func (s logSink) Info(_ int, msg string, kv ...any)      { s.write(msg, kv) }
func (s logSink) Error(err error, msg string, kv ...any) { s.write(msg, append(kv, "err", err)) }

func (s logSink) write(msg string, kv []any) {
	s.w.WriteString(strings.TrimSpace(msg))
	for i := 0; i+1 < len(kv); i += 2 {
		fmt.Fprintf(s.w, " %v=%v", kv[i], kv[i+1])
	}
	s.w.WriteByte('\n')
}

// versions returns the model's versions, sorted by import path.
func versions(p *model.Project) []*model.Version {
	return collect(p, false)
}

// withInternal returns the model's versions and the groups' internal versions, sorted by
// import path.
func withInternal(p *model.Project) []*model.Version {
	return collect(p, true)
}

func collect(p *model.Project, internal bool) []*model.Version {
	var vs []*model.Version
	if p == nil {
		return nil
	}
	for _, g := range p.Groups {
		vs = append(vs, g.Versions...)
		if internal && g.Internal != nil {
			vs = append(vs, g.Internal)
		}
	}
	slices.SortFunc(vs, func(a, b *model.Version) int { return strings.Compare(a.Package, b.Package) })
	return vs
}

// versionPackages returns the import paths of the versions and the project-relative
// directory of each.
func versionPackages(ctx *engine.LoadContext) ([]string, map[string]string, error) {
	return packagesOf(ctx, versions(ctx.Project))
}

// packagesOf is versionPackages for the given versions.
func packagesOf(ctx *engine.LoadContext, vs []*model.Version) ([]string, map[string]string, error) {
	pkgs := make([]string, 0, len(vs))
	dirs := map[string]string{}
	var errs []error
	for _, v := range vs {
		if _, dup := dirs[v.Package]; dup {
			errs = append(errs, fmt.Errorf("package %s belongs to two versions", v.Package))
			continue
		}
		pkg := ctx.Load.Universe[v.Package]
		if pkg == nil || !ctx.Load.Required(v.Package) {
			errs = append(errs, fmt.Errorf("package %s of version %s is not in the load", v.Package, v.Name))
			continue
		}
		// The generated files go next to the package's own files.
		if rel, err := filepath.Rel(ctx.Load.Root, pkg.Dir); err != nil || filepath.ToSlash(rel) != v.Dir {
			errs = append(errs, fmt.Errorf("package %s of version %s is in %s, not in %s", v.Package, v.Name, filepath.ToSlash(rel), v.Dir))
			continue
		}
		pkgs = append(pkgs, v.Package)
		dirs[v.Package] = v.Dir
	}
	return pkgs, dirs, errors.Join(errs...)
}
