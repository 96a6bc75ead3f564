package schema

import (
	"encoding/json"
	"slices"

	"sigs.k8s.io/controller-tools/pkg/crd"
	ctloader "sigs.k8s.io/controller-tools/pkg/loader"

	"github.com/apigen-dev/apigen/generators/model"
)

// requiredStatusWarnings warns at the Status field of each kind with a status subresource whose
// schema requires status (openshift/api's Route: Status RouteStatus `json:"status"`, neither
// omitempty nor +optional, which openapi-gen and controller-gen both make required). A create
// clears the status, as kube-apiserver's does for a custom resource with a status subresource
// (its strategy deletes the key) and the schema then refuses the object: no create can
// succeed, with kube-apiserver and the CRD as with the server. The warning says so at generate
// time, not at the first create.
func requiredStatusWarnings(root string, p *model.Project, parser *crd.Parser, byPath map[string]*ctloader.Package) model.ErrorList {
	var warnings model.ErrorList
	for r := range p.Served() {
		if !r.Subresources.Status || len(r.Schema) == 0 {
			continue
		}
		var s struct {
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(r.Schema, &s); err != nil || !slices.Contains(s.Required, "status") {
			continue
		}
		pos := relative(root, locate(parser, crd.TypeIdent{Package: byPath[r.Version.Package], Name: r.Kind}, "properties[status]"))
		warnings.Add(pos, "warning: %s %s: the schema requires status (the field is neither omitempty nor +optional), "+
			"and a create clears the status (the status subresource's rule, kube-apiserver's for a custom resource too), "+
			"so every create of %s is refused (status: Required value); mark the field +optional or give its JSON tag omitempty",
			r.Kind, r.Version.Name, r.Kind)
	}
	return warnings
}
