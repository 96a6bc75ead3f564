package parse

import (
	"fmt"
	"strings"

	gengotypes "k8s.io/gengo/v2/types"

	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/model"
)

// scaleSubresource reads +apigen:subresource:scale (or +kubebuilder:subresource:scale) on a
// kind's type t. The paths follow a CRD's scale subresource: the desired replicas under
// .spec, the observed replicas under .status, both integers, and the optional label selector,
// a string, under either; here each must also name a field of the kind. Errors are recorded
// and give nil.
func (p *parser_) scaleSubresource(m *markers.Marker, t *gengotypes.Type) *model.Scale {
	a := m.Args.(*markers.Scale)
	ok := true
	check := func(arg, path, want string, under ...string) {
		if !hasAnyPrefix(path, under) {
			p.errs.Add(m.Pos, "+%s: %s=%s must be a field under %s, as in %sreplicas", m.Name, arg, path, strings.TrimSuffix(strings.Join(under, " or "), "."), under[0])
			ok = false
			return
		}
		_, leaf, err := goFieldPath(t, path)
		if err == nil && valueType(leaf) != want {
			err = fmt.Errorf("the field is %s, not %s", typeName(leaf), map[string]string{"integer": "an integer", "string": "a string"}[want])
		}
		if err != nil {
			p.errs.Add(m.Pos, "+%s: %s=%s: %v", m.Name, arg, path, err)
			ok = false
		}
	}
	check("specpath", a.SpecPath, "integer", ".spec.")
	check("statuspath", a.StatusPath, "integer", ".status.")
	if a.SelectorPath != "" {
		check("selectorpath", a.SelectorPath, "string", ".spec.", ".status.")
	}
	if !ok {
		return nil
	}
	return &model.Scale{SpecReplicasPath: a.SpecPath, StatusReplicasPath: a.StatusPath, LabelSelectorPath: a.SelectorPath, Pos: m.Pos}
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// checkScale wants a version's scale subresource to be the hub's too: one store holds hub
// objects for every version, and its /scale reads and writes the hub's fields.
func (p *parser_) checkScale(g *model.Group) {
	for _, v := range g.Versions {
		for _, r := range v.Resources {
			scale := r.Subresources.Scale
			if scale == nil {
				continue
			}
			hubVersion, hub := g.Hub(r.Kind)
			switch {
			case hub == nil:
			case hubVersion == g.Internal:
				p.errs.Add(scale.Pos, "the scale subresource of %s is not supported yet with internal types of your own (%s)", r.Kind, g.Internal.Dir)
			case hub.Subresources.Scale == nil || !hub.Subresources.Scale.Same(scale):
				p.errs.Add(scale.Pos, "the scale subresource of %s in %s differs from the one in %s, the version %s is stored in; the server scales stored objects, so give %s the same +%s",
					r.Kind, v.Name, hubVersion.Name, r.Kind, hubVersion.Name, markers.ScaleSubresource)
			}
		}
	}
}
