// Package server runs a project's API server: a k8s.io/apiserver
// GenericAPIServer that serves the groups described by an APIs value, either
// on its own for development (local mode) or as an aggregated API server in a
// cluster.
package server

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"

	"github.com/spf13/cobra"

	"k8s.io/apimachinery/pkg/runtime"
	openapinamer "k8s.io/apiserver/pkg/endpoints/openapi"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/util/compatibility"
	cliflag "k8s.io/component-base/cli/flag"
	basecompatibility "k8s.io/component-base/compatibility"
	"k8s.io/component-base/term"
	"k8s.io/kube-openapi/pkg/validation/spec"
	netutils "k8s.io/utils/net"
)

const longHelp = `Runs the %[1]s API server.

Local mode, for development, is the default. Unless one of --etcd-servers,
--kubeconfig, --authentication-kubeconfig, --authorization-kubeconfig or --cluster is
given, the server starts an embedded etcd that keeps its data in --data-dir%[5]s,
listens on 127.0.0.1:%[2]d, accepts only client certificates signed by a CA it
keeps in --data-dir, and writes an admin kubeconfig to --write-kubeconfig:

    kubectl --kubeconfig %[3]s api-resources

Stop it with Ctrl-C; a restart on the same --data-dir keeps every object and
the same credentials.

Cluster mode, selected by any of those flags, runs it as an aggregated API
server behind kube-apiserver (an APIService): objects are stored in the etcd
cluster given by --etcd-servers%[6]s, and
authentication and authorization are
delegated to kube-apiserver (front-proxy request headers, TokenReview,
SubjectAccessReview), as the Kubernetes sample-apiserver does. Before
deploying with "kubectl apply -k config/default", "%[4]s certs" writes the
serving certificate and the CA bundle the APIServices need (see its --help).`

// commandName is the command's name in help texts; the project builds it from
// cmd/apiserver.
const commandName = "apiserver"

// NewCommand returns the command that runs the API server described by apis
// until ctx is cancelled.
func NewCommand(ctx context.Context, apis APIs) *cobra.Command {
	o := newOptions(apis)
	// Before the feature gates are bound to flags: --feature-gates enables the options.
	gatesErr := RegisterValidationOptions(apis.ValidationOptions)
	cmd := &cobra.Command{
		Use:   commandName,
		Short: fmt.Sprintf("Runs the %s API server", apis.Name),
		Long:  fmt.Sprintf(longHelp, apis.Name, localSecurePort, defaultKubeconfig, commandName, localStorageHelp, clusterStorageHelp),
		Args:  cobra.NoArgs,
		PersistentPreRunE: func(*cobra.Command, []string) error {
			if gatesErr != nil {
				return gatesErr
			}
			// Resolves feature gates against the emulated version right after parsing.
			return compatibility.DefaultComponentGlobalsRegistry.Set()
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			fs := cmd.Flags()
			// verflag would print the Kubernetes libraries' version.
			if v := fs.Lookup("version").Value.String(); v != "false" {
				info := effectiveVersion().Info()
				if v == "raw" {
					fmt.Fprintf(cmd.OutOrStdout(), "%#v\n", *info)
				} else {
					fmt.Fprintf(cmd.OutOrStdout(), "%s %s\n", apis.Name, info.GitVersion)
				}
				return nil
			}
			cliflag.PrintFlags(fs)

			o.complete(fs)
			if err := o.validate(fs); err != nil {
				return err
			}
			setMemoryLimit()
			if o.localMode {
				return o.runLocal(cmd.Context(), cmd.OutOrStdout())
			}
			return o.runCluster(cmd.Context())
		},
	}
	cmd.SetContext(ctx)
	cmd.AddCommand(newCertsCommand(apis))

	fss := o.flags(cmd.Name())
	for _, f := range fss.FlagSets {
		cmd.Flags().AddFlagSet(f)
	}
	cols, _, _ := term.TerminalSize(cmd.OutOrStdout())
	cliflag.SetUsageAndHelpFunc(cmd, fss, cols)
	return cmd
}

func (o *options) runCluster(ctx context.Context) error {
	// Used only without --tls-cert-file; the APIService's caBundle must then
	// be this generated certificate's.
	if err := o.recommended.SecureServing.MaybeDefaultWithSelfSignedCerts(
		"localhost", nil, []net.IP{netutils.ParseIPSloppy("127.0.0.1")}); err != nil {
		return fmt.Errorf("creating self-signed serving certificate: %w", err)
	}
	if o.datastore.enabled() {
		// kine's socket goes into a directory of its own that only this
		// user can enter, as local mode's data dir.
		dir, err := os.MkdirTemp("", o.apis.Name+"-kine-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		store, url, err := startKine(ctx, o.datastore, filepath.Join(dir, kineSocket))
		if err != nil {
			return err
		}
		defer store.Close() // after the server has drained
		o.recommended.Etcd.StorageConfig.Transport.ServerList = []string{url}
		// Replicas behind one Service: one is routed to once the others'
		// writes wake it. Local mode serves one client, whom no readiness routes.
		o.storageReadyz = store.readyzChecks()
	}
	s, err := o.newServer(nil)
	if err != nil {
		return err
	}
	return s.PrepareRun().RunWithContext(ctx)
}

// newServer builds the server from the options and installs the APIs.
// customize, if not nil, adjusts the config after the options are applied.
func (o *options) newServer(customize func(*genericapiserver.RecommendedConfig)) (*genericapiserver.GenericAPIServer, error) {
	apis := o.apis
	config := genericapiserver.NewRecommendedConfig(apis.Codecs)

	// OpenAPI v2 and v3 feed kubectl explain, client-side validation and
	// server-side apply.
	namer := definitionNamer(apis.Scheme)
	definitions := apis.Schemas.constrain(apis.Scheme, apis.TypePackages, WithScaleOpenAPIDefinitions(apis.OpenAPIDefinitions))
	config.OpenAPIConfig = genericapiserver.DefaultOpenAPIConfig(definitions, namer)
	config.OpenAPIV3Config = genericapiserver.DefaultOpenAPIV3Config(definitions, namer)
	for _, info := range []*spec.Info{config.OpenAPIConfig.Info, config.OpenAPIV3Config.Info} {
		info.Title, info.Version = apis.Name, projectVersion()
	}
	if len(apis.Deprecations) > 0 {
		config.OpenAPIConfig.PostProcessSpec = apis.Deprecations.markV2
		config.OpenAPIV3Config.PostProcessSpec = apis.Deprecations.markV3
	}

	registry := compatibility.DefaultComponentGlobalsRegistry
	config.EffectiveVersion = effectiveVersion()
	config.FeatureGate = registry.FeatureGateFor(basecompatibility.DefaultKubeComponent)

	codec, err := storageCodec(apis, o.recommended.Etcd.DefaultStorageMediaType)
	if err != nil {
		return nil, err
	}
	o.recommended.Etcd.StorageConfig.Codec = codec
	if err := o.recommended.ApplyTo(config); err != nil {
		return nil, err
	}
	if o.recommended.Admission == nil {
		if err := o.admission.localChain(config); err != nil {
			return nil, err
		}
	}
	if customize != nil {
		customize(config)
	}
	config.ShutdownWatchTerminationGracePeriod = o.watchTermination
	if !o.localMode {
		readyWithFrontProxyCA(&config.Config)
	}
	config.AddReadyzChecks(o.storageReadyz...)
	if o.trustFrontProxy && !o.localMode {
		trustFrontProxy(&config.Config)
	}
	config.BuildHandlerChainFunc = apis.Deprecations.handlerChain(config.BuildHandlerChainFunc)
	config.BuildHandlerChainFunc = newListBudget(config.StorageObjectCountTracker).handlerChain(config.Serializer, config.BuildHandlerChainFunc)

	s, err := config.Complete().New(apis.Name+"-apiserver", genericapiserver.NewEmptyDelegate())
	if err != nil {
		return nil, err
	}
	if err := apis.Install(s, config.RESTOptionsGetter); err != nil {
		return nil, fmt.Errorf("installing APIs: %w", err)
	}
	o.admission.start(s)
	return s, nil
}

// definitionNamer names OpenAPI definitions as upstream does, but from the
// external kinds only. A storage version's Go types are registered as the
// group's internal version too, and the namer would list that "__internal"
// version in x-kubernetes-group-version-kind, where clients take it for a
// version they could request.
func definitionNamer(scheme *runtime.Scheme) *openapinamer.DefinitionNamer {
	external := runtime.NewScheme()
	for gvk, t := range scheme.AllKnownTypes() {
		if gvk.Version != runtime.APIVersionInternal {
			external.AddKnownTypeWithName(gvk, reflect.New(t).Interface().(runtime.Object))
		}
	}
	return openapinamer.NewDefinitionNamer(external)
}
