package parse

import (
	"slices"

	"github.com/apigen-dev/apigen/generators/model"
)

// checkCustomSubresources wants a version's custom subresources to be the hub's too: the
// storage is built once per kind, for the store of the hub's objects.
func (p *parser_) checkCustomSubresources(g *model.Group) {
	for _, v := range g.Versions {
		for _, r := range v.Resources {
			hubVersion, hub := g.Hub(r.Kind)
			if hub == nil || hub == r {
				continue
			}
			for _, c := range r.Subresources.Custom {
				i := slices.IndexFunc(hub.Subresources.Custom, func(h model.CustomSubresource) bool { return h.Name == c.Name })
				switch {
				case hubVersion == g.Internal:
					p.errs.Add(c.Pos, "custom subresources of %s are not supported yet with internal types of your own (%s)", r.Kind, g.Internal.Dir)
				case i < 0 || !slices.Equal(hub.Subresources.Custom[i].Verbs, c.Verbs):
					p.errs.Add(c.Pos, "the %s subresource of %s in %s is not declared with the same verbs in %s, the version %s is stored in; its storage serves every version, so declare it there too",
						c.Name, r.Kind, v.Name, hubVersion.Name, r.Kind)
				}
			}
		}
	}
}
