package parse

import (
	"fmt"
	"go/token"
	gotypes "go/types"
	"path"
	"strings"

	gengotypes "k8s.io/gengo/v2/types"

	"github.com/apigen-dev/apigen/generators/model"
)

// hookSignature is a hook's expected parameters and results; "*Kind" stands for a pointer to
// the resource's own type.
type hookSignature struct {
	name    string
	params  []string
	results []string
	set     func(*model.Hooks)
}

var hookSignatures = []hookSignature{
	{"Default", nil, nil, func(h *model.Hooks) { h.Default = true }},
	{"Validate", []string{"context.Context"}, []string{"k8s.io/apimachinery/pkg/util/validation/field.ErrorList"}, func(h *model.Hooks) { h.Validate = true }},
	{"ValidateUpdate", []string{"context.Context", "*Kind"}, []string{"k8s.io/apimachinery/pkg/util/validation/field.ErrorList"}, func(h *model.Hooks) { h.ValidateUpdate = true }},
	{"ValidateStatusUpdate", []string{"context.Context", "*Kind"}, []string{"k8s.io/apimachinery/pkg/util/validation/field.ErrorList"}, func(h *model.Hooks) { h.ValidateStatusUpdate = true }},
	{"PrepareForCreate", []string{"context.Context"}, nil, func(h *model.Hooks) { h.PrepareForCreate = true }},
	{"PrepareForUpdate", []string{"context.Context", "*Kind"}, nil, func(h *model.Hooks) { h.PrepareForUpdate = true }},
	{"Canonicalize", nil, nil, func(h *model.Hooks) { h.Canonicalize = true }},
	{"WarningsOnCreate", []string{"context.Context"}, []string{"[]string"}, func(h *model.Hooks) { h.WarningsOnCreate = true }},
	{"WarningsOnUpdate", []string{"context.Context", "*Kind"}, []string{"[]string"}, func(h *model.Hooks) { h.WarningsOnUpdate = true }},
}

// hooks finds the strategy hooks the user wrote on a kind. A method with a hook's name but
// another signature is not a hook: the generated strategy could not call it. It is a warning at
// the method, never silently skipped (a typo would hide the user's validation), and not an
// error: packages written for other tools have methods of these names for their own reasons
// (cluster-api's MachineSet.Validate() field.ErrorList, a helper of its webhooks).
func (p *parser_) hooks(t *gengotypes.Type, r *model.Resource) model.Hooks {
	var h model.Hooks
	if t == nil {
		return h
	}
	for _, sig := range hookSignatures {
		m, ok := t.Methods[sig.name]
		if !ok || m.Signature == nil {
			continue
		}
		if got, want := describe(m.Signature, t), sig.describe(t.Name.Name); got != want {
			p.warned.Add(p.methodPos(t, sig.name), "warning: method %s.%s has signature %s, so the generated strategy does not call it; a %s hook is %s (rename the method if it is not meant as one)", t.Name.Name, sig.name, got, sig.name, want)
			continue
		}
		sig.set(&h)
		if sig.name != "Default" {
			p.strategyHooks[r] = append(p.strategyHooks[r], hookAt{sig.name, p.methodPos(t, sig.name)})
		}
	}
	return h
}

// methodPos is where a type declares a method, from the load's type information: right for
// a kind of any package, whichever was read last.
func (p *parser_) methodPos(t *gengotypes.Type, method string) token.Position {
	if named, ok := t.GoType.(*gotypes.Named); ok {
		for m := range named.Methods() {
			if m.Name() == method {
				return p.pos(m.Pos())
			}
		}
	}
	return token.Position{}
}

// hookAt is a strategy hook the user wrote, and where.
type hookAt struct {
	name string
	pos  token.Position
}

// checkStrategyHooks reports strategy hooks written on a kind in a version that does not store
// it: the strategy works on the storage version's type, so they would never be called. Default
// is fine anywhere: it runs when an object of its version is decoded.
func (p *parser_) checkStrategyHooks(g *model.Group) {
	for _, v := range g.Versions {
		for _, r := range v.Resources {
			hub, _ := g.Hub(r.Kind)
			if hub == v {
				continue
			}
			for _, h := range p.strategyHooks[r] {
				where := "its storage version"
				if hub != nil {
					where = hub.Name
				}
				dir := path.Dir(v.Dir) + "/" + where
				if g.Internal != nil && hub == g.Internal {
					where, dir = "the internal version", hub.Dir
				}
				p.errs.Add(h.pos, "method %s.%s is never called: %s's hub is %s, and the generated strategy calls the hooks of that version's type; move the method to %s",
					r.Kind, h.name, r.Kind, where, dir)
			}
		}
	}
}

func (s hookSignature) describe(kind string) string {
	params := make([]string, len(s.params))
	for i, p := range s.params {
		params[i] = strings.ReplaceAll(p, "Kind", kind)
	}
	return funcString(strings.Join(params, ", "), s.results)
}

// funcString spells a signature as Go does: "func(a, b)", "func(a) r" or "func(a) (r, s)".
func funcString(params string, results []string) string {
	switch len(results) {
	case 0:
		return fmt.Sprintf("func(%s)", params)
	case 1:
		return fmt.Sprintf("func(%s) %s", params, results[0])
	}
	return fmt.Sprintf("func(%s) (%s)", params, strings.Join(results, ", "))
}

func describe(sig *gengotypes.Signature, kind *gengotypes.Type) string {
	names := func(prs []*gengotypes.ParamResult) []string {
		out := make([]string, len(prs))
		for i, pr := range prs {
			out[i] = typeString(pr.Type, kind)
		}
		return out
	}
	return funcString(strings.Join(names(sig.Parameters), ", "), names(sig.Results))
}

// typeString renders a type the way hookSignatures spell it: the kind by its bare name,
// other named types with their import path.
func typeString(t *gengotypes.Type, kind *gengotypes.Type) string {
	switch t.Kind {
	case gengotypes.Pointer:
		return "*" + typeString(t.Elem, kind)
	case gengotypes.Slice:
		return "[]" + typeString(t.Elem, kind)
	}
	if t.Name == kind.Name {
		return kind.Name.Name
	}
	if t.Name.Package == "" {
		return t.Name.Name
	}
	return t.Name.Package + "." + t.Name.Name
}
