package model

import (
	"regexp"
	"strings"
)

var (
	// dns1123Subdomain is Kubernetes' rule for group names.
	dns1123Subdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	// versionName is Kubernetes' version convention: v1, v1beta2, v2alpha1.
	versionName = regexp.MustCompile(`^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$`)
	// resourceName is what a resource path segment may be: lower-case DNS-1035 label.
	resourceName = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)
)

// Validate checks the model as a whole and returns every problem at once, sorted by position.
func (p *Project) Validate() error {
	var errs ErrorList
	groups := map[string]*Group{}
	for _, g := range p.Groups {
		if prev, ok := groups[g.Name]; ok {
			errs.Add(g.Pos, "group %q is also declared in pkg/apis/%s (%s); one group lives in one directory", g.Name, prev.Package, prev.Pos)
		}
		groups[g.Name] = g
		if len(g.Name) > 253 || !dns1123Subdomain.MatchString(g.Name) || !strings.Contains(g.Name, ".") {
			errs.Add(g.Pos, "+groupName=%s: a group name must be a lower-case DNS subdomain with at least one dot, like wardle.example.com", g.Name)
		}
		g.validateVersions(&errs)
	}
	return errs.Err()
}

func (g *Group) validateVersions(errs *ErrorList) {
	var storage []*Version
	for _, v := range g.Versions {
		if !versionName.MatchString(v.Name) {
			errs.Add(v.Pos, "version %q must look like v1, v1beta1 or v2alpha1", v.Name)
		}
		if v.Storage {
			storage = append(storage, v)
		}
		v.validateResources(errs)
	}
	switch {
	case len(g.Versions) > 0 && len(storage) == 0:
		errs.Add(g.Pos, "group %s has %d versions; mark the one stored in etcd with +apigen:storageversion", g.Name, len(g.Versions))
	case len(storage) > 1:
		for _, v := range storage[1:] {
			errs.Add(v.Pos, "group %s has more than one storage version (%s and %s); keep +apigen:storageversion on one", g.Name, storage[0].Name, v.Name)
		}
	}
}

func (v *Version) validateResources(errs *ErrorList) {
	kinds, plurals := map[string]*Resource{}, map[string]*Resource{}
	for _, r := range v.Resources {
		if prev, ok := kinds[r.Kind]; ok {
			errs.Add(r.Pos, "kind %s is declared twice in %s (first at %s)", r.Kind, v.Package, prev.Pos)
		}
		kinds[r.Kind] = r
		if prev, ok := plurals[r.Plural]; ok {
			errs.Add(r.Pos, "resource path %q of %s is already used by %s (%s)", r.Plural, r.Kind, prev.Kind, prev.Pos)
		}
		plurals[r.Plural] = r
		for _, name := range append([]string{r.Plural, r.Singular}, r.ShortNames...) {
			if !resourceName.MatchString(name) {
				errs.Add(r.Pos, "%s: %q is not a valid resource name (lower-case letters, digits and '-', starting with a letter)", r.Kind, name)
			}
		}
		if r.Scope != Namespaced && r.Scope != Cluster {
			errs.Add(r.Pos, "%s: scope must be Namespaced or Cluster, not %q", r.Kind, r.Scope)
		}
		if r.Subresources.Status && !r.HasStatus {
			errs.Add(r.Pos, "%s: +apigen:subresource:status needs a Status field", r.Kind)
		}
	}
}
