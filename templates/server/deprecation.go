package server

import (
	"net/http"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// Deprecations are the warnings of deprecated versions of resources
// (+apigen:deprecatedversion), as a CRD's deprecated versions have them.
type Deprecations map[schema.GroupVersionResource]string

// handlerChain adds the deprecation warning to every request to a deprecated
// resource version, its subresources included, as kube-apiserver does for a
// deprecated CRD version; kubectl prints it as "Warning: ...".
func (d Deprecations) handlerChain(next func(http.Handler, *server.Config) http.Handler) func(http.Handler, *server.Config) http.Handler {
	if len(d) == 0 {
		return next
	}
	return func(apiHandler http.Handler, c *server.Config) http.Handler {
		warn := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if info, ok := request.RequestInfoFrom(r.Context()); ok && info.IsResourceRequest {
				gvr := schema.GroupVersionResource{Group: info.APIGroup, Version: info.APIVersion, Resource: info.Resource}
				if msg, ok := d[gvr]; ok {
					warning.AddWarning(r.Context(), "", msg)
				}
			}
			apiHandler.ServeHTTP(w, r)
		})
		return next(warn, c)
	}
}

// deprecatedPaths returns whether an OpenAPI path is one of a deprecated
// resource version's (its collection, its objects, their subresources and
// watches).
func (d Deprecations) deprecatedPaths() func(path string) bool {
	var prefixes []string
	for gvr := range d {
		for _, watch := range []string{"", "watch/"} {
			base := "/apis/" + gvr.Group + "/" + gvr.Version + "/" + watch
			prefixes = append(prefixes, base+gvr.Resource, base+"namespaces/{namespace}/"+gvr.Resource)
		}
	}
	return func(path string) bool {
		for _, p := range prefixes {
			if path == p || strings.HasPrefix(path, p+"/") {
				return true
			}
		}
		return false
	}
}

// markV2 marks the operations of deprecated resource versions deprecated in
// the OpenAPI v2 document.
func (d Deprecations) markV2(s *spec.Swagger) (*spec.Swagger, error) {
	if s.Paths == nil {
		return s, nil
	}
	deprecated := d.deprecatedPaths()
	for path, item := range s.Paths.Paths {
		if !deprecated(path) {
			continue
		}
		for _, op := range []*spec.Operation{item.Get, item.Put, item.Post, item.Delete, item.Patch} {
			if op != nil {
				op.Deprecated = true
			}
		}
		s.Paths.Paths[path] = item
	}
	return s, nil
}

// markV3 marks the operations of deprecated resource versions deprecated in
// the OpenAPI v3 documents.
func (d Deprecations) markV3(s *spec3.OpenAPI) (*spec3.OpenAPI, error) {
	if s.Paths == nil {
		return s, nil
	}
	deprecated := d.deprecatedPaths()
	for path, item := range s.Paths.Paths {
		if item == nil || !deprecated(path) {
			continue
		}
		for _, op := range []*spec3.Operation{item.Get, item.Put, item.Post, item.Delete, item.Patch} {
			if op != nil {
				op.Deprecated = true
			}
		}
	}
	return s, nil
}
