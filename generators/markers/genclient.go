package markers

import (
	"reflect"
	"strings"

	"github.com/apigen-dev/apigen/generators/model"
)

// Kubernetes' own tags for resources: client-gen's. A root type of a k8s.io/api-style package
// says it is a resource with +genclient, and the other +genclient tags give its scope, status
// and verbs; such a package is served with no apigen marker at all.
const (
	GenClient              = "genclient"
	GenClientNonNamespaced = "genclient:nonNamespaced"
	GenClientNoStatus      = "genclient:noStatus"
	GenClientNoVerbs       = "genclient:noVerbs"
	GenClientOnlyVerbs     = "genclient:onlyVerbs"
)

// registerGenClient adds client-gen's type tags. Those with no effect on the server (a client
// method, verbs the client skips) still shape the generated clients, which read them.
func registerGenClient(r *Registry) {
	r.Register(&Definition{
		Name: GenClient, Target: Type, Value: true, Args: reflect.TypeFor[bool](),
		Help: "client-gen's tag: the type is a resource (served with its defaults when it has no +apigen:resource, " +
			"a status subresource when it has a Status field), and gets a typed client",
		Example: "+genclient",
	})
	r.Register(&Definition{
		Name: GenClientNonNamespaced, Target: Type,
		Help:    "client-gen's tag: the resource is cluster-scoped",
		Example: "+genclient:nonNamespaced",
		Resource: func(_ *Marker, r *model.Resource, _ Kind) error {
			r.Scope = model.Cluster
			return nil
		},
	})
	r.Register(&Definition{
		Name: GenClientNoStatus, Target: Type,
		Help:    "client-gen's tag: the resource has no status subresource, even with a Status field",
		Example: "+genclient:noStatus",
		Resource: func(_ *Marker, r *model.Resource, _ Kind) error {
			r.Subresources.Status = false
			return nil
		},
	})
	r.Register(&Definition{
		Name: GenClientNoVerbs, Target: Type,
		Help:    "client-gen's tag: the type is no resource of its own (policy's Eviction, a subresource's body)",
		Example: "+genclient:noVerbs",
	})
	r.Register(&Definition{
		Name: GenClientOnlyVerbs, Target: Type, Value: true,
		Help: "client-gen's tag: the verbs the resource serves; a resource +genclient declares is then served by " +
			"REST storage you write (a create-only review, say), as with +apigen:storage:custom",
		Example:  "+genclient:onlyVerbs=create",
		Resource: genClientOnlyVerbs,
	})
	r.Register(&Definition{
		Name: "genclient:method", Target: Type, PassThrough: true,
		Help:     "client-gen's tag: an extra client method; one that calls a subresource the server does not serve is a warning",
		Example:  "+genclient:method=UpdateApproval,verb=update,subresource=approval,input=...,result=...",
		Resource: genClientMethod,
	})
	for _, name := range []string{"genclient:skipVerbs", "genclient:readonly"} {
		r.Register(&Definition{
			Name: name, Target: Type, PassThrough: true,
			Help: "client-gen's tag; it shapes the generated client, not the server",
		})
	}
}

// genClientOnlyVerbs applies +genclient:onlyVerbs to a resource that +genclient declares: it is
// served by REST storage the user writes, with those verbs (client-gen's spelling,
// deleteCollection, taken as the server's), and no status subresource. On a resource an apigen or kubebuilder marker
// declares, it shapes only the client.
func genClientOnlyVerbs(m *Marker, r *model.Resource, kind Kind) error {
	if r.Marker != "+"+GenClient {
		return nil
	}
	var verbs []string
	for _, v := range strings.Split(m.Args.(string), ",") {
		switch v = strings.ToLower(strings.TrimSpace(v)); v {
		case "updatestatus", "applystatus":
			continue // the status subresource's, which the storage does not serve
		case "apply":
			v = "patch"
		}
		verbs = append(verbs, v)
	}
	// No status subresource, whatever the Status field: kube-apiserver serves such a kind (a
	// review's status is its answer) from storage of its own, with no /status, and the status
	// subresource apigen serves is the etcd store's that custom storage replaces.
	r.Subresources.Status = false
	// From here it is +apigen:storage:custom with those verbs: the same checks, the same effect.
	return customStorage(&Marker{Def: m.Def, Name: m.Name, Args: &CustomStorage{Verbs: verbs}, Pos: m.Pos}, r, kind)
}

// genClientMethod warns about a client method of a resource +genclient declares that calls a
// subresource the server does not serve (certificates' /approval, apps' /scale): kube-apiserver
// serves them from hand-written storage, which a package's types do not carry.
func genClientMethod(m *Marker, r *model.Resource, kind Kind) error {
	if r.Marker != "+"+GenClient {
		return nil
	}
	var name, sub, verb string
	for i, arg := range strings.Split(strings.TrimPrefix(m.Args.(string), "="), ",") {
		key, value, _ := strings.Cut(arg, "=")
		switch {
		case i == 0:
			name = arg
		case key == "subresource":
			sub = value
		case key == "verb":
			verb = value
		}
	}
	if sub == "" || sub == "status" {
		return nil
	}
	kind.Warn(m, "+%s=%s: the server does not serve the %s subresource that this client method calls; "+
		"serve it with +apigen:subresource:custom:name=%s,verbs=%s and storage of your own", m.Name, name, sub, sub, verb)
	return nil
}
