package parse

import (
	"fmt"
	"slices"
	"strings"

	gengotypes "k8s.io/gengo/v2/types"

	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/model"
)

// scaleSubresource reads +apigen:subresource:scale (or +kubebuilder:subresource:scale) on a
// kind's type t. The paths follow a CRD's scale subresource: the desired replicas under
// .spec, the observed replicas under .status, both integers, and the optional label selector
// under either; here each must also name a field of the kind. The selector is a string (its
// serialized form, as a CRD's) or a metav1.LabelSelector, which /scale renders as
// kube-apiserver's own workloads do. Errors are recorded and give nil.
func (p *parser_) scaleSubresource(m *markers.Marker, t *gengotypes.Type) *model.Scale {
	s, problems := scaleFields(t, m.Args.(*markers.Scale))
	for _, problem := range problems {
		p.errs.Add(m.Pos, "+%s: %s", m.Name, problem)
	}
	if s != nil {
		s.Pos = m.Pos
	}
	return s
}

// scaleFields checks a scale subresource's paths against the kind's type t and returns the
// subresource (without a position), or nil and every problem.
func scaleFields(t *gengotypes.Type, a *markers.Scale) (*model.Scale, []string) {
	var problems []string
	check := func(arg, path string, want []string, under ...string) *gengotypes.Type {
		if !hasAnyPrefix(path, under) {
			problems = append(problems, fmt.Sprintf("%s=%s must be a field under %s, as in %sreplicas", arg, path, strings.TrimSuffix(strings.Join(under, " or "), "."), under[0]))
			return nil
		}
		_, leaf, err := goFieldPath(t, path)
		if err == nil && !slices.Contains(want, scaleValueType(leaf)) {
			err = fmt.Errorf("the field is %s, not %s", typeName(leaf), map[string]string{"integer": "an integer", "string": "a string"}[want[0]])
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s=%s: %v", arg, path, err))
			return nil
		}
		return leaf
	}
	check("specpath", a.SpecPath, []string{"integer"}, ".spec.")
	check("statuspath", a.StatusPath, []string{"integer"}, ".status.")
	structured := false
	if a.SelectorPath != "" {
		leaf := check("selectorpath", a.SelectorPath, []string{"string", labelSelector}, ".spec.", ".status.")
		structured = leaf != nil && scaleValueType(leaf) == labelSelector
	}
	if len(problems) > 0 {
		return nil, problems
	}
	return &model.Scale{SpecReplicasPath: a.SpecPath, StatusReplicasPath: a.StatusPath, LabelSelectorPath: a.SelectorPath, LabelSelectorStructured: structured}, nil
}

// labelSelector is what scaleValueType calls a metav1.LabelSelector.
const labelSelector = "LabelSelector"

// scaleValueType is valueType, or labelSelector for a metav1.LabelSelector.
func scaleValueType(t *gengotypes.Type) string {
	if t.Name.Package == metav1Path && t.Name.Name == "LabelSelector" {
		return labelSelector
	}
	return valueType(t)
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
