package server

import (
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/initializer"
	"k8s.io/apiserver/pkg/admission/plugin/resourcequota"
	quota "k8s.io/apiserver/pkg/quota/v1"
	"k8s.io/apiserver/pkg/quota/v1/generic"
	genericapiserver "k8s.io/apiserver/pkg/server"
	genericoptions "k8s.io/apiserver/pkg/server/options"
)

// registerQuota adds kube-apiserver's ResourceQuota admission to cluster mode's chain, last, as
// kube-apiserver orders it (a request another plugin refuses uses no quota). kube-apiserver
// never admits the requests it proxies to an aggregated server, so without it a namespace's
// count/<resource>.<group> quota would be counted by kube-controller-manager and enforced by no
// one. The plugin reads the cluster's ResourceQuotas through the server's informers, refuses
// with kube-apiserver's message, and records what it admitted in their status; the generic
// quota configuration counts the server's objects (object count evaluators, added as the
// plugin meets their resources). Local mode has no ResourceQuotas and runs without it.
func registerQuota(ro *genericoptions.RecommendedOptions) {
	resourcequota.Register(ro.Admission.Plugins)
	ro.Admission.RecommendedPluginOrder = append(ro.Admission.RecommendedPluginOrder, resourcequota.PluginName)
	next := ro.ExtraAdmissionInitializers
	ro.ExtraAdmissionInitializers = func(c *genericapiserver.RecommendedConfig) ([]admission.PluginInitializer, error) {
		initializers, err := next(c)
		if err != nil {
			return nil, err
		}
		// After the generic initializer (appended behind it), which gives the plugin the
		// stop channel its configuration needs.
		return append(initializers, quotaInitializer{generic.NewConfiguration(nil, nil)}), nil
	}
}

// quotaInitializer hands the quota configuration to the plugins that want it.
type quotaInitializer struct{ configuration quota.Configuration }

func (i quotaInitializer) Initialize(plugin admission.Interface) {
	if wants, ok := plugin.(initializer.WantsQuotaConfiguration); ok {
		wants.SetQuotaConfiguration(i.configuration)
	}
}
