// Package engine runs generators over one model and one load, collects their output in
// memory, and writes or diffs it against the project tree.
package engine

import (
	"errors"
	"fmt"
	"go/token"

	"github.com/apigen-dev/apigen/generators/loader"
	"github.com/apigen-dev/apigen/generators/model"
)

// Context is what every generator receives: the validated model, the load it came from and
// the header that starts every generated Go file.
type Context struct {
	Project *model.Project
	Load    *loader.Result
	// GoHeader is the complete header of a generated Go file, up to (not including) the
	// package clause: build tag, the user's boilerplate and the "Code generated" line.
	GoHeader []byte
	// ScaffoldConversions asks the conversion generator to plan a user-owned stub of each
	// conversion function conversion-gen leaves to the user (apigen generate
	// --scaffold-conversions) instead of failing on them.
	ScaffoldConversions bool
	// Warnings are what generators found that does not stop generation (a hand-written
	// conversion that drops a field); the run reports them with the model's.
	Warnings model.ErrorList
}

// Warn records a positioned warning about the user's input, printed as
// file:line:col: warning: message (once, as every entry of a model.ErrorList).
func (c *Context) Warn(pos token.Position, format string, args ...any) {
	c.Warnings.Add(pos, "warning: %s", fmt.Sprintf(format, args...))
}

// Generator adds files to an Output. It never touches the disk.
type Generator interface {
	Name() string
	Generate(ctx *Context, out *Output) error
}

// Run runs generators in order and returns their combined output. A panic in a generator
// (the upstream ones klog.Fatal or panic on input they dislike) becomes an error.
func Run(ctx *Context, generators []Generator) (*Output, error) {
	out := NewOutput()
	for _, g := range generators {
		if err := runOne(ctx, g, out); err != nil {
			// Errors about the user's input stand on their own, file:line:col first.
			var positioned model.ErrorList
			if errors.As(err, &positioned) {
				return nil, err
			}
			return nil, fmt.Errorf("%s: %w", g.Name(), err)
		}
	}
	return out, nil
}

func runOne(ctx *Context, g Generator, out *Output) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("generator panicked: %v", r)
		}
	}()
	return g.Generate(ctx, out)
}
