package server

import (
	"fmt"
	"io"
	"slices"
	"time"

	"k8s.io/apiserver/pkg/admission"
	admissionmetrics "k8s.io/apiserver/pkg/admission/metrics"
	genericapiserver "k8s.io/apiserver/pkg/server"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
)

// AdmissionPlugin is an admission plugin of the project's own, mutating (admission.MutationInterface),
// validating (admission.ValidationInterface) or both, as k8s.io/sample-apiserver's BanFlunder is.
// cmd/apiserver/main.go registers them in APIs.Admission. In cluster mode they run after the standard
// admission chain of an aggregated server (NamespaceLifecycle, admission webhooks and policies) and
// before ResourceQuota, are enabled by default and named in --enable-admission-plugins and
// --disable-admission-plugins; in local mode they are the whole chain.
type AdmissionPlugin struct {
	// Name names the plugin in flags, logs and metrics.
	Name string
	// New builds the plugin once, when the server starts. Informers asked for in New are started
	// with the server; the plugin should wait for them to sync (admission.Handler's
	// SetReadyFunc and WaitForReady) before it decides on a request.
	New func(informers Informers) (admission.Interface, error)
}

// Informers hands admission plugins informers of the server's own resources, read through the
// server's loopback connection: informers.ForResource(gvr).Lister() lists unstructured objects
// (runtime.DefaultUnstructuredConverter turns them into the typed ones). This is the one place
// that chooses how plugins see the server's objects.
type Informers = dynamicinformer.DynamicSharedInformerFactory

// admissionPlugins builds the project's plugins for one server and starts their informers with it.
type admissionPlugins struct {
	plugins   []AdmissionPlugin
	informers Informers
}

// validateAdmission wants every plugin named, once, with a name no standard plugin has, and
// built by a New function.
func validateAdmission(plugins []AdmissionPlugin) []error {
	var errs []error
	standard := genericoptions.NewAdmissionOptions().Plugins.Registered()
	seen := map[string]bool{}
	for i, p := range plugins {
		switch {
		case p.Name == "" || p.New == nil:
			errs = append(errs, fmt.Errorf("server.APIs: Admission[%d] (%q) needs a Name and a New function", i, p.Name))
		case seen[p.Name] || slices.Contains(standard, p.Name):
			errs = append(errs, fmt.Errorf("server.APIs: Admission[%d]: another admission plugin is named %s", i, p.Name))
		}
		seen[p.Name] = true
	}
	return errs
}

// register makes the plugins part of the standard admission chain of cluster mode: registered,
// enabled by default after the standard ones, built once the loopback configuration exists
// (ExtraAdmissionInitializers runs just before the chain is built).
func (a *admissionPlugins) register(ro *genericoptions.RecommendedOptions) {
	if len(a.plugins) == 0 {
		return
	}
	if len(validateAdmission(a.plugins)) > 0 {
		return // validate reports them before anything starts
	}
	for _, p := range a.plugins {
		ro.Admission.Plugins.Register(p.Name, func(io.Reader) (admission.Interface, error) { return p.New(a.informers) })
		ro.Admission.RecommendedPluginOrder = append(ro.Admission.RecommendedPluginOrder, p.Name)
	}
	next := ro.ExtraAdmissionInitializers
	ro.ExtraAdmissionInitializers = func(c *genericapiserver.RecommendedConfig) ([]admission.PluginInitializer, error) {
		if err := a.newInformers(c.LoopbackClientConfig); err != nil {
			return nil, err
		}
		return next(c)
	}
}

// newInformers makes the informer factory of the plugins, once.
func (a *admissionPlugins) newInformers(loopback *rest.Config) error {
	if a.informers != nil {
		return nil
	}
	client, err := dynamic.NewForConfig(loopback)
	if err != nil {
		return fmt.Errorf("admission plugins' client: %w", err)
	}
	a.informers = dynamicinformer.NewDynamicSharedInformerFactory(client, 10*time.Minute)
	return nil
}

// localChain is local mode's admission: the project's plugins alone, since the standard ones
// need a kube-apiserver.
func (a *admissionPlugins) localChain(c *genericapiserver.RecommendedConfig) error {
	if len(a.plugins) == 0 {
		return nil
	}
	if err := a.newInformers(c.LoopbackClientConfig); err != nil {
		return err
	}
	var chain []admission.Interface
	for _, p := range a.plugins {
		plugin, err := p.New(a.informers)
		if err != nil {
			return fmt.Errorf("admission plugin %s: %w", p.Name, err)
		}
		if err := admission.ValidateInitialization(plugin); err != nil {
			return fmt.Errorf("admission plugin %s: %w", p.Name, err)
		}
		chain = append(chain, admissionmetrics.WithControllerMetrics(plugin, p.Name))
	}
	c.AdmissionControl = admission.NewChainHandler(chain...)
	return nil
}

// start starts the informers the plugins asked for once the server serves them.
func (a *admissionPlugins) start(s *genericapiserver.GenericAPIServer) {
	if a.informers == nil {
		return
	}
	s.AddPostStartHookOrDie("start-admission-informers", func(ctx genericapiserver.PostStartHookContext) error {
		a.informers.Start(ctx.Done())
		return nil
	})
}
