package parse

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/apigen-dev/apigen/generators/markers"
	"github.com/apigen-dev/apigen/generators/model"
)

// customVerbs are the verbs a subresource's REST storage can serve, each through its
// k8s.io/apiserver interface: get (rest.Getter), create (rest.Creater), update (rest.Updater),
// patch (rest.Patcher: a getter and updater), delete (rest.GracefulDeleter), connect
// (rest.Connecter).
var customVerbs = []string{"connect", "create", "delete", "get", "patch", "update"}

// customSubresources reads the +apigen:subresource:custom markers of a kind. Errors are
// recorded; a subresource with errors is left out.
func (p *parser_) customSubresources(ms []*markers.Marker) []model.CustomSubresource {
	var out []model.CustomSubresource
	seen := map[string]*markers.Marker{}
	for _, m := range ms {
		a := m.Args.(*markers.CustomSubresource)
		ok := true
		fail := func(format string, args ...any) {
			p.errs.Add(m.Pos, "+%s: "+format, append([]any{m.Name}, args...)...)
			ok = false
		}
		if errs := validation.IsDNS1123Label(a.Name); len(errs) > 0 {
			fail("name=%s: %s", a.Name, strings.Join(errs, "; "))
		}
		if a.Name == "status" || a.Name == "scale" {
			fail("name=%s: use +apigen:subresource:%s, which apigen serves itself", a.Name, a.Name)
		}
		if prev, dup := seen[a.Name]; dup {
			fail("name=%s is already declared at %s", a.Name, prev.Pos)
		}
		seen[a.Name] = m
		verbs := []string{}
		for _, v := range a.Verbs {
			switch {
			case !slices.Contains(customVerbs, v):
				fail("verbs: %q is not one of %s", v, strings.Join(customVerbs, ", "))
			case slices.Contains(verbs, v):
				fail("verbs: %s is listed twice", v)
			default:
				verbs = append(verbs, v)
			}
		}
		hasGetUpdate := slices.Contains(verbs, "get") && slices.Contains(verbs, "update")
		switch {
		case len(verbs) == 0 && ok:
			fail("verbs: list at least one verb, as in verbs=get;update;patch")
		case slices.Contains(verbs, "patch") && !hasGetUpdate:
			fail("verbs: patch needs get and update (a patch reads the object, then updates it)")
		case hasGetUpdate && !slices.Contains(verbs, "patch"):
			// The API server serves patch for every storage that gets and updates.
			fail("verbs: storage that serves get and update serves patch too; add patch")
		}
		if ok {
			slices.Sort(verbs)
			out = append(out, model.CustomSubresource{Name: a.Name, Verbs: verbs, Pos: m.Pos})
		}
	}
	slices.SortFunc(out, func(a, b model.CustomSubresource) int { return strings.Compare(a.Name, b.Name) })
	return out
}

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
