package servertest

import (
	"net/http"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/registry/generic"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/rest"
	openapicommon "k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/apigen-dev/apigen/templates/server"
)

// emptyAPIs serves no group: enough to see the server start, answer and stop.
func emptyAPIs() server.APIs {
	scheme := runtime.NewScheme()
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	scheme.AddUnversionedTypes(schema.GroupVersion{Version: "v1"},
		&metav1.Status{}, &metav1.APIVersions{}, &metav1.APIGroupList{}, &metav1.APIGroup{}, &metav1.APIResourceList{})
	return server.APIs{
		Name:   "servertest",
		Scheme: scheme,
		Codecs: serializer.NewCodecFactory(scheme),
		OpenAPIDefinitions: func(openapicommon.ReferenceCallback) map[string]openapicommon.OpenAPIDefinition {
			defs := map[string]openapicommon.OpenAPIDefinition{}
			for _, name := range []string{
				"io.k8s.apimachinery.pkg.version.Info",
				"io.k8s.apimachinery.pkg.apis.meta.v1.APIGroupList",
				"io.k8s.apimachinery.pkg.apis.meta.v1.APIGroup",
				"io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList",
				"io.k8s.apimachinery.pkg.apis.meta.v1.APIVersions",
				"io.k8s.apimachinery.pkg.apis.meta.v1.Status",
			} {
				defs[name] = openapicommon.OpenAPIDefinition{Schema: spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}}}}
			}
			return defs
		},
		Install: func(*genericapiserver.GenericAPIServer, generic.RESTOptionsGetter) error { return nil },
	}
}

func TestStart(t *testing.T) {
	var cfg *rest.Config
	t.Run("server", func(t *testing.T) {
		cfg = Start(t, emptyAPIs())
		client, err := rest.HTTPClientFor(cfg)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Get(cfg.Host + "/version")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET /version as the admin: %s, want 200", resp.Status)
		}
	})
	// The subtest's cleanup stopped the server.
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := client.Get(cfg.Host + "/version"); err == nil {
		resp.Body.Close()
		t.Errorf("the server still answers after its test ended: %s", resp.Status)
	}
}
