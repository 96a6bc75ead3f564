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

// checkCustomStorage reports what a kind served by its own storage (+apigen:storage:custom)
// cannot have: apigen's subresources, print columns and selectable fields are served by the
// etcd store it replaces, and the strategy hooks (all but Default, which runs on decoding)
// would never be called. Every version of such a kind declares the same verbs, since one
// storage serves them all. It reads what each version declares (Resource.Declared), once
// the kind's storage version is known.
func (p *parser_) checkCustomStorage(g *model.Group) {
	for _, v := range g.Versions {
		for _, r := range v.Resources {
			// Against the stored version: an internal hub has its kind's storage from there
			// (settleGroupPackages).
			storedVersion, stored := g.Stored(r.Kind)
			declared := r.Declared.CustomStorage
			if stored != nil && stored != r && (declared != nil || stored.Declared.CustomStorage != nil) &&
				(declared == nil || stored.Declared.CustomStorage == nil || !slices.Equal(declared.Verbs, stored.Declared.CustomStorage.Verbs)) {
				pos := r.Pos
				if declared != nil {
					pos = declared.Pos
				}
				p.errs.Add(pos, "%s is not declared with the same +apigen:storage:custom verbs in %s as in %s, the version it is stored in; one storage serves every version, so declare the same in each",
					r.Kind, v.Name, storedVersion.Name)
			}
			cs := declared
			if cs == nil {
				continue
			}
			without := func(what string) {
				p.errs.Add(cs.Pos, "+apigen:storage:custom: %s cannot have %s as well: apigen serves those through the etcd store that custom storage replaces; remove the marker(s)", r.Kind, what)
			}
			if r.Subresources.Status {
				without("a status subresource")
			}
			if r.Subresources.Scale != nil {
				without("a scale subresource")
			}
			if len(r.Subresources.Custom) > 0 {
				without("custom subresources")
			}
			if len(r.PrintColumns) > 0 {
				p.errs.Add(cs.Pos, "+apigen:storage:custom: %s cannot have print columns as well: custom storage prints kubectl get's table itself (its ConvertToTable); remove the +apigen:printcolumn markers", r.Kind)
			}
			for _, f := range r.SelectableFields {
				p.errs.Add(f.Pos, "+apigen:selectablefield: %s has custom storage (+apigen:storage:custom at %s), which filters lists itself; remove the marker", r.Kind, cs.Pos)
			}
			for _, h := range p.strategyHooks[r] {
				p.errs.Add(h.pos, "%s.%s would never be called: %s has custom storage (+apigen:storage:custom at %s), which has no strategy; call it from your storage, or remove it", r.Kind, h.name, r.Kind, cs.Pos)
			}
		}
	}
}
