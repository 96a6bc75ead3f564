package server

import (
	"context"
	"net/http"
	"reflect"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/group"
	"k8s.io/apiserver/pkg/authentication/request/headerrequest"
	"k8s.io/apiserver/pkg/authentication/request/union"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/endpoints/filters"
	genericapiserver "k8s.io/apiserver/pkg/server"
)

// A request kube-apiserver proxies to this server has passed kube-apiserver's
// own authorization first: the aggregator sits behind its whole filter chain,
// so the user, verb and object the request names were authorized there, with
// the same authorizers (RBAC, webhooks) a SubjectAccessReview would ask. The
// delegating authorizer cannot tell such a request from a direct one and asks
// kube-apiserver again, once per object and verb (its cache key holds the
// name): on the path users take that second review costs kube-apiserver as
// much CPU as serving a CRD's get (BENCHMARKS.md, "through kube-apiserver").
//
// Trusting the front proxy gives nothing away: whoever holds its client
// certificate already chooses the user and groups the server sees, and the
// delegating authorizer always allows system:masters. So a request the
// request-header authenticator accepted is allowed for exactly the attributes
// it names; every other authorization check (admission plugins, a different
// verb or object, impersonation) and every direct request still gets a review.

// proxiedKey holds a *proxied in a request's context.
type proxiedKey struct{}

// proxied records that the request-header authenticator, not another one,
// authenticated the request.
type proxied struct{ byFrontProxy bool }

// trustFrontProxy makes config's chain skip the review of a proxied request's
// own attributes. It does nothing without a front proxy (no request-header
// CA) or without delegated authorization.
func trustFrontProxy(config *genericapiserver.Config) {
	rh := config.Authentication.RequestHeaderConfig
	if rh == nil || config.Authentication.Authenticator == nil || config.Authorization.Authorizer == nil {
		return
	}
	frontProxy := headerrequest.NewDynamicVerifyOptionsSecure(
		rh.CAContentProvider.VerifyOptions, rh.AllowedClientNames,
		rh.UsernameHeaders, rh.UIDHeaders, rh.GroupHeaders, rh.ExtraHeaderPrefixes)
	// Tried first, as upstream's delegating authenticator tries it; a request
	// without the proxy's certificate falls through to the configured ones.
	config.Authentication.Authenticator = union.New(
		group.NewAuthenticatedGroupAdder(markFrontProxy(frontProxy)),
		config.Authentication.Authenticator)
	config.Authorization.Authorizer = proxyTrustingAuthorizer{config.Authorization.Authorizer}

	next := config.BuildHandlerChainFunc
	config.BuildHandlerChainFunc = func(apiHandler http.Handler, c *genericapiserver.Config) http.Handler {
		chain := next(apiHandler, c)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			chain.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), proxiedKey{}, &proxied{})))
		})
	}
}

// markFrontProxy records in the request's context that a authenticated it.
func markFrontProxy(a authenticator.Request) authenticator.Request {
	return authenticator.RequestFunc(func(req *http.Request) (*authenticator.Response, bool, error) {
		resp, ok, err := a.AuthenticateRequest(req)
		if ok {
			if p, _ := req.Context().Value(proxiedKey{}).(*proxied); p != nil {
				p.byFrontProxy = true
			}
		}
		return resp, ok, err
	})
}

// proxyTrustingAuthorizer allows a proxied request's own attributes and asks
// its Authorizer about everything else. Both entry points are its own, so
// neither reaches the embedded authorizer for a trusted request.
type proxyTrustingAuthorizer struct{ authorizer.Authorizer }

const proxyAuthorized = "authorized by kube-apiserver before it proxied the request"

func (a proxyTrustingAuthorizer) Authorize(ctx context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	if isProxiedRequest(ctx, attrs) {
		return authorizer.DecisionAllow, proxyAuthorized, nil
	}
	return a.Authorizer.Authorize(ctx, attrs)
}

func (a proxyTrustingAuthorizer) ConditionsAwareAuthorize(ctx context.Context, attrs authorizer.Attributes) authorizer.ConditionsAwareDecision {
	if isProxiedRequest(ctx, attrs) {
		return authorizer.ConditionsAwareDecisionFromParts(authorizer.DecisionAllow, proxyAuthorized, nil)
	}
	return a.Authorizer.ConditionsAwareAuthorize(ctx, attrs)
}

// isProxiedRequest reports whether the front proxy authenticated the request
// in ctx and attrs are exactly the request's own.
func isProxiedRequest(ctx context.Context, attrs authorizer.Attributes) bool {
	p, _ := ctx.Value(proxiedKey{}).(*proxied)
	if p == nil || !p.byFrontProxy {
		return false
	}
	own, err := filters.GetAuthorizerAttributes(ctx)
	return err == nil && reflect.DeepEqual(own, attrs)
}
