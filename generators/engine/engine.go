// Package engine runs generators over one model and one load, collects their output in
// memory, and writes or diffs it against the project tree.
//
// Two kinds of generator run, each with a context of its own. An Upstream generator (the
// Kubernetes generators run in process, and protobuf) reads the load, before the model is
// validated, and writes into the model the facts only it can know. A Generator, one of
// apigen's own emitters, receives a Context, which holds the model and no load: an emitter
// that reads the load does not compile.
package engine

import (
	"errors"
	"fmt"
	"go/token"

	"github.com/apigen-dev/apigen/generators/loader"
	"github.com/apigen-dev/apigen/generators/model"
)

// Context is what apigen's own emitters receive: the complete, validated model and the header
// that starts every generated Go file. It holds nothing of the load: what an emitter needs of
// the user's source is a model fact.
type Context struct {
	Project *model.Project
	// GoHeader is the complete header of a generated Go file, up to (not including) the
	// package clause: build tag, the user's boilerplate and the "Code generated" line.
	GoHeader []byte
	// Warnings are what generators found that does not stop generation (a hand-written
	// conversion that drops a field); the run reports them with the model's.
	Warnings model.ErrorList
}

// Warn records a positioned warning about the user's input, printed as
// file:line:col: warning: message (once, as every entry of a model.ErrorList).
func (c *Context) Warn(pos token.Position, format string, args ...any) {
	c.Warnings.Add(pos, "warning: %s", fmt.Sprintf(format, args...))
}

// LoadContext is what the upstream generators receive: the model, not yet validated, with
// the load it came from. They complete the model with the facts only their runs know
// (model.Resource.ObjectDefaulter, DeclarativeValidation, model.Project.ConversionDrops).
type LoadContext struct {
	Context
	Load *loader.Result
	// ScaffoldConversions asks the conversion generator to plan a user-owned stub of each
	// conversion function conversion-gen leaves to the user (apigen generate
	// --scaffold-conversions) instead of failing on them.
	ScaffoldConversions bool
}

// Generator is one of apigen's own emitters: it adds files to an Output from the model. It
// never touches the disk.
type Generator interface {
	Name() string
	Generate(ctx *Context, out *Output) error
}

// Upstream is a generator that reads the load: it adds files to an Output and facts to the
// model. It never touches the disk.
type Upstream interface {
	Name() string
	Generate(ctx *LoadContext, out *Output) error
}

// Run runs emitters in order and returns their combined output. A panic in a generator
// becomes an error.
func Run(ctx *Context, generators []Generator) (*Output, error) {
	out := NewOutput()
	if err := RunInto(out, ctx, generators); err != nil {
		return nil, err
	}
	return out, nil
}

// RunInto runs emitters in order, adding their files to out.
func RunInto(out *Output, ctx *Context, generators []Generator) error {
	return runAll(out, ctx, generators)
}

// RunUpstream runs upstream generators in order and returns their combined output. A panic
// in a generator (the upstream ones klog.Fatal or panic on input they dislike) becomes an
// error.
func RunUpstream(ctx *LoadContext, generators []Upstream) (*Output, error) {
	out := NewOutput()
	if err := runAll(out, ctx, generators); err != nil {
		return nil, err
	}
	return out, nil
}

type generator[C any] interface {
	Name() string
	Generate(ctx C, out *Output) error
}

func runAll[C any, G generator[C]](out *Output, ctx C, generators []G) error {
	for _, g := range generators {
		if err := runOne(ctx, g, out); err != nil {
			// Errors about the user's input stand on their own, file:line:col first.
			var positioned model.ErrorList
			if errors.As(err, &positioned) {
				return err
			}
			return fmt.Errorf("%s: %w", g.Name(), err)
		}
	}
	return nil
}

func runOne[C any, G generator[C]](ctx C, g G, out *Output) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("generator panicked: %v", r)
		}
	}()
	return g.Generate(ctx, out)
}
