package markers

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/apigen-dev/apigen/generators/model"
)

// customVerbs are the verbs a subresource's REST storage can serve, each through its
// k8s.io/apiserver interface: get (rest.Getter), create (rest.Creater), update (rest.Updater),
// patch (rest.Patcher: a getter and updater), delete (rest.GracefulDeleter), connect
// (rest.Connecter).
var customVerbs = []string{"connect", "create", "delete", "get", "patch", "update"}

// ApplyToResource adds a subresource served by REST storage the user writes, with the verbs
// it serves, kept sorted by name.
func (a *CustomSubresource) ApplyToResource(m *Marker, r *model.Resource, _ Kind) error {
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if errs := validation.IsDNS1123Label(a.Name); len(errs) > 0 {
		fail("name=%s: %s", a.Name, strings.Join(errs, "; "))
	}
	if a.Name == "status" || a.Name == "scale" {
		fail("name=%s: use +apigen:subresource:%s, which apigen serves itself", a.Name, a.Name)
	}
	if i := slices.IndexFunc(r.Subresources.Custom, func(c model.CustomSubresource) bool { return c.Name == a.Name }); i >= 0 {
		fail("name=%s is already declared at %s", a.Name, r.Subresources.Custom[i].Pos)
	}
	verbs := checkVerbs(a.Verbs, customVerbs, fail)
	if len(problems) > 0 {
		return fmt.Errorf("+%s: %s", m.Name, strings.Join(problems, "; "))
	}
	r.Subresources.Custom = append(r.Subresources.Custom, model.CustomSubresource{Name: a.Name, Verbs: verbs, Pos: m.Pos})
	slices.SortFunc(r.Subresources.Custom, func(a, b model.CustomSubresource) int { return strings.Compare(a.Name, b.Name) })
	return nil
}

// storageVerbs are the verbs a kind's own REST storage can serve, each through its
// k8s.io/apiserver interface (see server.CheckVerbs).
var storageVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

// ApplyToResource serves the kind by REST storage the user writes instead of an etcd store,
// with the verbs it serves, as this version declares it (parse holds the versions to one).
func (a *CustomStorage) ApplyToResource(m *Marker, r *model.Resource, _ Kind) error {
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if prev := r.Declared.CustomStorage; prev != nil {
		fail("%s already has custom storage at %s", r.Kind, prev.Pos)
	}
	verbs := checkVerbs(a.Verbs, storageVerbs, fail)
	if len(problems) > 0 {
		return fmt.Errorf("+%s: %s", m.Name, strings.Join(problems, "; "))
	}
	r.Declared.CustomStorage = &model.CustomStorage{Verbs: verbs, Pos: m.Pos}
	return nil
}

// checkVerbs returns the verbs a marker lists, sorted, and reports through fail each one that
// is not allowed or listed twice, and a patch without get and update or the other way round:
// the API server serves patch exactly for storage that gets and updates.
func checkVerbs(listed, allowed []string, fail func(format string, args ...any)) []string {
	verbs := []string{}
	bad := false
	for _, v := range listed {
		switch {
		case !slices.Contains(allowed, v):
			fail("verbs: %q is not one of %s", v, strings.Join(allowed, ", "))
			bad = true
		case slices.Contains(verbs, v):
			fail("verbs: %s is listed twice", v)
			bad = true
		default:
			verbs = append(verbs, v)
		}
	}
	hasGetUpdate := slices.Contains(verbs, "get") && slices.Contains(verbs, "update")
	switch {
	case len(verbs) == 0 && !bad:
		fail("verbs: list at least one verb, as in verbs=get;update;patch")
	case slices.Contains(verbs, "patch") && !hasGetUpdate:
		fail("verbs: patch needs get and update (a patch reads the object, then updates it)")
	case hasGetUpdate && !slices.Contains(verbs, "patch"):
		// The API server serves patch for every storage that gets and updates.
		fail("verbs: storage that serves get and update serves patch too; add patch")
	}
	slices.Sort(verbs)
	return verbs
}
