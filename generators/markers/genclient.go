package markers

import (
	"fmt"
	"reflect"
	"slices"
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
	GenClientReadonly      = "genclient:readonly"
	ResourceName           = "resourceName"
)

// Client-gen's tags are the arguments of its markers, each with its effect.
type (
	// GenClientTag is +genclient's argument, which has none: client-gen refuses any value
	// ("+genclient=false is invalid"), and so does apigen, rather than read one client-gen
	// would not.
	GenClientTag struct{}
	// NonNamespacedTag is +genclient:nonNamespaced's argument, which has none.
	NonNamespacedTag struct{}
	// NoStatusTag is +genclient:noStatus's argument, which has none.
	NoStatusTag struct{}
	// NoVerbsTag is +genclient:noVerbs's argument, which has none: it has no effect of its
	// own, and keeps +genclient from declaring the type a resource.
	NoVerbsTag struct{}
	// OnlyVerbsTag is +genclient:onlyVerbs's value, client-gen's verbs separated by commas.
	OnlyVerbsTag string
	// MethodTag is the text after +genclient:method's name ("=Name,verb=...,subresource=...").
	MethodTag string
	// ReadonlyTag is +genclient:readonly's argument, which has none: client-gen's shorthand for
	// +genclient:onlyVerbs=get,list,watch.
	ReadonlyTag struct{}
	// ResourceNameTag is +resourceName's value: the resource's name in URLs, which client-gen's
	// clients call instead of the kind's plural (k8s.io/metrics' NodeMetrics is "nodes").
	ResourceNameTag string
)

// registerGenClient adds client-gen's type tags. Those with no effect on the server (a client
// method, verbs the client skips) still shape the generated clients, which read them.
func registerGenClient(r *Registry) {
	r.Register(&Definition{
		Name: GenClient, Target: Type, Args: reflect.TypeFor[GenClientTag](),
		Help: "client-gen's tag: the type is a resource (served with its defaults when it has no +apigen:resource, " +
			"a status subresource when it has a Status field), and gets a typed client",
		Example: "+genclient",
	})
	r.Register(&Definition{
		Name: GenClientNonNamespaced, Target: Type, Args: reflect.TypeFor[NonNamespacedTag](), ClientGen: true,
		Help:    "client-gen's tag: the resource is cluster-scoped",
		Example: "+genclient:nonNamespaced",
	})
	r.Register(&Definition{
		Name: GenClientNoStatus, Target: Type, Args: reflect.TypeFor[NoStatusTag](), ClientGen: true,
		Help:    "client-gen's tag: the resource has no status subresource, even with a Status field",
		Example: "+genclient:noStatus",
	})
	r.Register(&Definition{
		Name: GenClientNoVerbs, Target: Type, Args: reflect.TypeFor[NoVerbsTag](), ClientGen: true,
		Help:    "client-gen's tag: the type is no resource of its own (policy's Eviction, a subresource's body)",
		Example: "+genclient:noVerbs",
	})
	r.Register(&Definition{
		Name: GenClientOnlyVerbs, Target: Type, Value: true, Args: reflect.TypeFor[OnlyVerbsTag](), ClientGen: true,
		Help: "client-gen's tag: the verbs the resource serves; a resource +genclient declares is then served by " +
			"REST storage you write (a create-only review, say), as with +apigen:storage:custom",
		Example: "+genclient:onlyVerbs=create",
	})
	r.Register(&Definition{
		Name: "genclient:method", Target: Type, PassThrough: true, Args: reflect.TypeFor[MethodTag](), ClientGen: true,
		Help: "client-gen's tag: an extra client method; one that calls /scale with an autoscaling/v1 Scale serves it as " +
			"kube-apiserver serves its workloads' (spec.replicas, status.replicas, the spec's label selector); one that calls " +
			"any other subresource the server does not serve is a warning",
		Example: "+genclient:method=UpdateApproval,verb=update,subresource=approval,input=...,result=...",
	})
	r.Register(&Definition{
		Name: GenClientReadonly, Target: Type, Args: reflect.TypeFor[ReadonlyTag](), ClientGen: true,
		Help: "client-gen's tag: the resource serves get, list and watch only (+genclient:onlyVerbs=get,list,watch); a " +
			"resource +genclient declares is then served by REST storage you write, as metrics-server serves its metrics",
		Example: "+genclient:readonly",
	})
	r.Register(&Definition{
		Name: ResourceName, Target: Type, Value: true, Args: reflect.TypeFor[ResourceNameTag](), ClientGen: true,
		Help: "client-gen's tag: the resource's name in URLs, which the generated clients call, instead of the kind's " +
			"plural; the server serves the resource under it",
		Example: "+resourceName=nodes",
	})
	r.Register(&Definition{
		Name: "genclient:skipVerbs", Target: Type, PassThrough: true, ClientGen: true,
		Help: "client-gen's tag; it shapes the generated client, not the server",
	})
}

// DeclaresWith reports whether +genclient declares a kind a resource in a Kubernetes-style
// package, which it does when the kind has no resource marker of apigen's or kubebuilder's:
// unless +genclient:noVerbs is there too (policy's Eviction, a body that only a subresource
// takes).
func (GenClientTag) DeclaresWith(ms []*Marker) bool {
	return !slices.ContainsFunc(ms, func(m *Marker) bool {
		_, noVerbs := m.Args.(*NoVerbsTag)
		return noVerbs
	})
}

// OwnStorageMarker is +genclient:onlyVerbs with the verbs: client-gen's tag serves a kind that
// +genclient declares from storage the user writes (see OnlyVerbsTag.ApplyToResource).
func (GenClientTag) OwnStorageMarker(verbs string) string {
	return "+" + GenClientOnlyVerbs + "=" + verbs
}

// DeclareFallback serves the kind as kube-apiserver serves its built-in types: with a CRD's
// default names, namespaced, and with a status subresource when it has a Status field, unless
// +genclient:noStatus says otherwise.
func (GenClientTag) DeclareFallback(m *Marker, r *model.Resource) {
	(&Resource{}).DeclareResource(m, r)
	r.Subresources.Status = r.HasStatus
	r.BuiltInStyle = true
}

// ApplyToResource makes the resource's kind cluster-scoped.
func (NonNamespacedTag) ApplyToResource(_ *Marker, r *model.Resource, _ Kind) error {
	r.Declared.Scope = model.Cluster
	return nil
}

// ApplyToResource serves no status subresource.
func (NoStatusTag) ApplyToResource(_ *Marker, r *model.Resource, _ Kind) error {
	r.Subresources.Status = false
	return nil
}

// ApplyToResource applies +genclient:onlyVerbs to a resource that +genclient declares: it is
// served by REST storage the user writes, with those verbs (client-gen's spelling,
// deleteCollection, taken as the server's), and no status subresource. On a resource an apigen or kubebuilder marker
// declares, it shapes only the client.
func (t OnlyVerbsTag) ApplyToResource(m *Marker, r *model.Resource, kind Kind) error {
	if !r.BuiltInStyle {
		return nil
	}
	var verbs []string
	for _, v := range strings.Split(string(t), ",") {
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
	return (&CustomStorage{Verbs: verbs}).ApplyToResource(m, r, kind)
}

// ApplyToResource applies +genclient:readonly as client-gen reads it: +genclient:onlyVerbs with
// its read-only verbs.
func (ReadonlyTag) ApplyToResource(m *Marker, r *model.Resource, kind Kind) error {
	return OnlyVerbsTag(strings.Join(readonlyVerbs, ",")).ApplyToResource(m, r, kind)
}

// readonlyVerbs are the verbs client-gen gives a +genclient:readonly client (its
// util.ReadonlyVerbs).
var readonlyVerbs = []string{"get", "list", "watch"}

// ApplyToResource serves the resource under the name client-gen's clients call. A path that a
// resource marker gives explicitly and that differs is an error: the generated clients would
// call a resource the server does not serve.
func (t ResourceNameTag) ApplyToResource(m *Marker, r *model.Resource, _ Kind) error {
	name := string(t)
	if r.Declared.Plural != name && r.Declared.Plural != defaultPlural(r.Kind) {
		return fmt.Errorf("+%s=%s: the resource marker serves %s as %s, and client-gen's clients would call %s; "+
			"give both the same name", m.Name, name, r.Kind, r.Declared.Plural, name)
	}
	r.Declared.Plural = name
	return nil
}

// autoscalingScale is the Scale that +genclient:method names for a kind whose /scale serves
// autoscaling/v1's, as apps/v1's workloads do.
const autoscalingScale = "k8s.io/api/autoscaling/v1.Scale"

// kubernetesScale is the scale subresource kube-apiserver's own workloads serve (its
// pkg/registry/apps storage for deployments, statefulsets and replicasets): spec.replicas,
// status.replicas, and status.selector rendered from the spec's metav1.LabelSelector.
var kubernetesScale = Scale{SpecPath: ".spec.replicas", StatusPath: ".status.replicas", SelectorPath: ".spec.selector"}

// ApplyToResource serves the subresource a client method of a resource +genclient declares
// calls, where the types say enough: /scale with autoscaling/v1's Scale (apps/v1's
// workloads) is served as kube-apiserver serves its workloads' (kubernetesScale). It warns
// about any other (certificates' /approval, extensions/v1beta1's Scale of its own):
// kube-apiserver serves those from hand-written storage whose semantics the types do not carry.
func (t MethodTag) ApplyToResource(m *Marker, r *model.Resource, kind Kind) error {
	if !r.BuiltInStyle {
		return nil
	}
	var name, sub, verb, result string
	for i, arg := range strings.Split(strings.TrimPrefix(string(t), "="), ",") {
		key, value, _ := strings.Cut(arg, "=")
		switch {
		case i == 0:
			name = arg
		case key == "subresource":
			sub = value
		case key == "verb":
			verb = value
		case key == "result":
			result = value
		}
	}
	if sub == "" || sub == "status" {
		return nil
	}
	switch {
	case sub == "scale" && result == autoscalingScale:
		if r.Subresources.Scale != nil {
			return nil // another method's, or a scale marker's, which says more
		}
		s, err := kind.ScaleFields(&kubernetesScale)
		if err == nil {
			s.Pos = m.Pos
			r.Subresources.Scale = s
			return nil
		}
		kind.Warn(m.Pos, "+%s=%s: the server does not serve the scale subresource that this client method calls: it serves an "+
			"autoscaling/v1 Scale from %s, %s and %s, as kube-apiserver's workloads do, and here %v; name the fields with "+
			"+%s:specpath=...,statuspath=...[,selectorpath=...]", m.Name, name, kubernetesScale.SpecPath, kubernetesScale.StatusPath,
			kubernetesScale.SelectorPath, err, ScaleSubresource)
	case sub == "scale":
		kind.Warn(m.Pos, "+%s=%s: the server does not serve the scale subresource that this client method calls with %s: "+
			"the /scale it serves answers with %s; serve this one with +apigen:subresource:custom:name=scale,verbs=%s and storage of your own",
			m.Name, name, result, autoscalingScale, verb)
	default:
		kind.Warn(m.Pos, "+%s=%s: the server does not serve the %s subresource that this client method calls; "+
			"serve it with +apigen:subresource:custom:name=%s,verbs=%s and storage of your own", m.Name, name, sub, sub, verb)
	}
	return nil
}
