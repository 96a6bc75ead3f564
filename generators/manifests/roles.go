package manifests

import (
	"slices"

	"github.com/apigen-dev/apigen/generators/model"
)

// aggregatedRole is a ClusterRole labelled rbac.authorization.k8s.io/aggregate-to-<Name>, so
// that the cluster's built-in <Name> role (admin, edit or view) grants its rules.
type aggregatedRole struct {
	Name  string
	Rules []roleRule
}

type roleRule struct {
	Group            string
	Resources, Verbs []string
}

// aggregatedRoles grants what Kubernetes' built-in roles grant for its own workloads: view reads
// every namespaced resource and subresource, edit and admin also write the resources and their
// /scale (status stays with controllers, as a Deployment's does). Like the built-in roles they
// are meant for a namespace and leave cluster-scoped kinds (a Fischer) to the cluster's
// administrators.
func aggregatedRoles(groups []*model.Group) []aggregatedRole {
	var read, write []roleRule
	for _, g := range groups {
		var all, writable []string
		for _, v := range g.Versions {
			for _, r := range v.Resources {
				if !r.Of.Namespaced() {
					continue
				}
				all = append(all, r.Of.Plural)
				writable = append(writable, r.Of.Plural)
				if r.Subresources.Status {
					all = append(all, r.Of.Plural+"/status")
				}
				if r.Subresources.Scale != nil {
					all = append(all, r.Of.Plural+"/scale")
					writable = append(writable, r.Of.Plural+"/scale")
				}
			}
		}
		if len(all) == 0 {
			continue
		}
		slices.Sort(all)
		slices.Sort(writable)
		read = append(read, roleRule{g.Name, slices.Compact(all), []string{"get", "list", "watch"}})
		write = append(write, roleRule{g.Name, slices.Compact(writable), []string{"create", "delete", "deletecollection", "patch", "update"}})
	}
	if len(read) == 0 {
		return nil
	}
	readWrite := slices.Concat(read, write)
	return []aggregatedRole{{"admin", readWrite}, {"edit", readWrite}, {"view", read}}
}
