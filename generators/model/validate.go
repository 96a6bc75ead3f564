package model

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

var (
	// domainName is a lower-case DNS domain with at least one dot.
	domainName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$`)
	// dns1123Subdomain is Kubernetes' rule for group names.
	dns1123Subdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	// versionName is Kubernetes' version convention: v1, v1beta2, v2alpha1.
	versionName = regexp.MustCompile(`^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$`)
	// resourceName is what a resource path segment may be: lower-case DNS-1035 label.
	resourceName = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)
	// dns1123Label is what a namespace name may be; dns1035Label is what a Service name may
	// be (it must start with a letter). Both are at most 63 characters.
	dns1123Label = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	dns1035Label = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)
)

// IsDomain reports whether s is a lower-case DNS domain with a dot (example.com), what
// apigen appends to a short group name.
func IsDomain(s string) bool { return domainName.MatchString(s) }

// DeployMarker is the marker that sets Project.Deploy, for messages.
const DeployMarker = "+apigen:deploy"

// Validate checks the model as a whole, once everything that fills it has run (parse, then the
// schemas), and returns every problem at once, sorted by position.
func (p *Project) Validate() error {
	var errs ErrorList
	groups := map[string]*Group{}
	for _, g := range p.Groups {
		if prev, ok := groups[g.Name]; ok {
			errs.Add(g.Pos, "group %q is also declared in pkg/apis/%s (%s); one group lives in one directory", g.Name, prev.Package, prev.Pos)
		}
		groups[g.Name] = g
		// What an APIService accepts as its group. A CRD's group needs a dot as well, but
		// Kubernetes' own groups (apps, batch, policy, ...) have none, and the server serves
		// them as kube-apiserver does.
		if len(g.Name) > 253 || !dns1123Subdomain.MatchString(g.Name) {
			errs.Add(g.Pos, "+groupName=%s: a group name must be a lower-case DNS subdomain, like wardle.example.com", g.Name)
		}
		g.validateVersions(&errs)
		g.validateAcrossVersions(&errs)
	}
	p.validateDeploy(&errs)
	return errs.Err()
}

// MaxDeployName is the longest +apigen:deploy name: the manifests name the bundled etcd's
// backup CronJob <name>-etcd-backup, and a CronJob's name has at most 52 characters (its Jobs
// add a suffix).
const MaxDeployName = 52 - len("-etcd-backup")

// validateDeploy checks the names the manifests give Kubernetes objects. Without a marker the
// names come from the project name, and the message says how to choose others.
func (p *Project) validateDeploy(errs *ErrorList) {
	d := p.Deploy
	bad := func(arg, value, what, rule string) {
		if d.Pos.IsValid() {
			errs.Add(d.Pos, "%s: %s %q is not a valid %s (%s)", DeployMarker, arg, value, what, rule)
			return
		}
		errs.Add(d.Pos, "project name %q gives the default %s %q, which is not a valid %s (%s); choose one with // %s:%s=<%s> in pkg/apis/doc.go",
			p.Name, arg, value, what, rule, DeployMarker, arg, arg)
	}
	if len(d.Namespace) > 63 || !dns1123Label.MatchString(d.Namespace) {
		bad("namespace", d.Namespace, "namespace name", "at most 63 lower-case letters, digits and '-', starting and ending with a letter or digit")
	}
	if len(d.Name) > MaxDeployName || !dns1035Label.MatchString(d.Name) {
		bad("name", d.Name, "Service name", fmt.Sprintf("at most %d lower-case letters, digits and '-', starting with a letter and ending with a letter or digit; the bundled etcd's CronJob <name>-etcd-backup may have at most 52", MaxDeployName))
	}
	switch {
	case d.Image == "":
		errs.Add(d.Pos, "%s: image is empty; leave the argument out for the default %s:latest, or name an image such as example.com/%s:v0.1.0", DeployMarker, d.Name, d.Name)
	case strings.ContainsFunc(d.Image, unicode.IsSpace):
		errs.Add(d.Pos, "%s: image %q contains white space, which no image reference does", DeployMarker, d.Image)
	}
}

func (g *Group) validateVersions(errs *ErrorList) {
	for _, v := range g.Versions {
		if !versionName.MatchString(v.Name) {
			errs.Add(v.Pos, "version %q (directory %s) must look like v1, v1beta1 or v2alpha1", v.Name, v.Dir)
		}
		v.validateResources(errs)
	}
	g.validateStorage(errs)
}

// validateStorage wants a storage version for every kind of the group (Kind.Storage): the
// version whose Go type is the kind's hub. A kind declared in one version is stored there; a
// kind declared in several needs +apigen:storageversion on one of them (parse decides).
func (g *Group) validateStorage(errs *ErrorList) {
	for _, k := range g.Kinds {
		if k.Storage != nil {
			continue
		}
		var names []string
		var marked []*Resource
		var in []*Version
		for _, v := range k.Versions {
			r := v.Kind(k.Name)
			names = append(names, v.Name)
			if r.StorageVersionMarked {
				marked = append(marked, r)
				in = append(in, v)
			}
		}
		if len(marked) < 2 {
			first := k.Versions[0].Kind(k.Name)
			errs.Add(first.Pos, "kind %s of group %s is declared in %d versions (%s) and none marks it +apigen:storageversion; add the marker to the %s of the version stored in etcd",
				k.Name, g.Name, len(names), strings.Join(names, ", "), k.Name)
			continue
		}
		for i, r := range marked[1:] {
			errs.Add(r.Pos, "kind %s of group %s is marked +apigen:storageversion (or +kubebuilder:storageversion) in %s and in %s (%s); a kind is stored in one version, keep the marker on one "+
				"(from such types controller-gen writes a CRD that stores both, which kube-apiserver refuses: a shipped CRD that installs was edited by hand)",
				k.Name, g.Name, in[i+1].Name, in[0].Name, marked[0].Pos)
		}
	}
}

// validateAcrossVersions enforces the rule that a group's versions are views of one set of
// resources: a resource path names the same kind in every version. (A kind has one path and
// scope, Kind.Plural and Kind.Scope, which parse settles; a kind may be missing from a
// version.) Anything else would give one REST path two kinds in the storage the versions share.
func (g *Group) validateAcrossVersions(errs *ErrorList) {
	type seen struct {
		r *Resource
		v *Version
	}
	paths := map[string]seen{}
	for _, v := range g.Versions {
		for _, r := range v.Resources {
			plural := r.Of.Plural
			if prev, ok := paths[plural]; ok && prev.v != v && prev.r.Kind != r.Kind {
				errs.Add(r.Pos, "%s: resource path %q is kind %s here but kind %s in %s (%s); a resource path must name the same kind in every version of group %s",
					r.marker(), plural, r.Kind, prev.r.Kind, prev.v.Name, prev.r.Pos, g.Name)
			} else if !ok {
				paths[plural] = seen{r, v}
			}
		}
	}
}

// marker returns the resource marker as written, for messages.
func (r *Resource) marker() string {
	if r.Marker == "" {
		return "+apigen:resource"
	}
	return r.Marker
}

func (v *Version) validateResources(errs *ErrorList) {
	kinds, plurals := map[string]*Resource{}, map[string]*Resource{}
	for _, r := range v.Resources {
		if prev, ok := kinds[r.Kind]; ok {
			errs.Add(r.Pos, "kind %s is declared twice in %s (first at %s)", r.Kind, v.Package, prev.Pos)
		}
		kinds[r.Kind] = r
		if prev, ok := plurals[r.Declared.Plural]; ok {
			errs.Add(r.Pos, "%s: resource path %q of %s is already used by %s in %s (%s); give one of them another path=", r.marker(), r.Declared.Plural, r.Kind, prev.Kind, v.Name, prev.Pos)
		}
		plurals[r.Declared.Plural] = r
		r.validateNames(errs)
		if r.Declared.Scope != Namespaced && r.Declared.Scope != Cluster {
			errs.Add(r.Pos, "%s on %s: scope must be Namespaced or Cluster, not %q", r.marker(), r.Kind, r.Declared.Scope)
		}
		if r.Subresources.Status && !r.HasStatus {
			errs.Add(r.Pos, "%s: +apigen:subresource:status needs a Status field", r.Kind)
		}
	}
	v.validateUniqueNames(errs)
}
