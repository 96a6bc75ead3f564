package server

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"net/http"
	"reflect"
	"slices"
	"sync"
	"time"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	"k8s.io/apiserver/pkg/authentication/group"
	"k8s.io/apiserver/pkg/authentication/request/headerrequest"
	"k8s.io/apiserver/pkg/authentication/request/union"
	x509request "k8s.io/apiserver/pkg/authentication/request/x509"
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
// much CPU as serving a CRD's get (apigen's docs/performance.md, "Against a CRD").
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
	frontProxy := newFrontProxyAuthenticator(rh)
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

// frontProxyAuthenticator is upstream's request-header authenticator (the front proxy's
// certificate verified against the request-header CA, its name allowed, then the user from the
// X-Remote-* headers) with the verification remembered: the proxy presents the same
// certificate on every request, and verifying its chain again each time was 5-8 % of the
// server's CPU on a proxied get (apigen's docs/performance.md). A chain is remembered only as verified
// against the CA bundle in use when it was (a new bundle is a new pool, and forgets it), only
// while every certificate of it is valid, and its name is checked on every request.
type frontProxyAuthenticator struct {
	verified  authenticator.Request // upstream's: verifies, checks the name, reads the headers
	headers   authenticator.Request // reads the headers only
	verifyFor x509request.VerifyOptionFunc
	names     x509request.StringSliceProvider

	mu     sync.Mutex
	chains map[[sha256.Size]byte]verifiedChain
}

// verifiedChain is a chain that verified against roots, and the time it is valid in.
type verifiedChain struct {
	roots               *x509.CertPool
	notBefore, notAfter time.Time
}

// maxVerifiedChains bounds the memory of chains: a front proxy has one certificate (one per
// kube-apiserver); anything else that presents certificates does not fill it.
const maxVerifiedChains = 16

func newFrontProxyAuthenticator(rh *authenticatorfactory.RequestHeaderConfig) *frontProxyAuthenticator {
	headers := headerrequest.NewDynamic(rh.UsernameHeaders, rh.UIDHeaders, rh.GroupHeaders, rh.ExtraHeaderPrefixes)
	return &frontProxyAuthenticator{
		verified:  x509request.NewDynamicCAVerifier(rh.CAContentProvider.VerifyOptions, headers, rh.AllowedClientNames),
		headers:   headers,
		verifyFor: rh.CAContentProvider.VerifyOptions,
		names:     rh.AllowedClientNames,
		chains:    map[[sha256.Size]byte]verifiedChain{},
	}
}

func (a *frontProxyAuthenticator) AuthenticateRequest(req *http.Request) (*authenticator.Response, bool, error) {
	if req.TLS == nil || len(req.TLS.PeerCertificates) == 0 {
		return nil, false, nil
	}
	opts, ok := a.verifyFor()
	if !ok {
		return nil, false, nil
	}
	certs := req.TLS.PeerCertificates
	h := sha256.New()
	for _, c := range certs {
		h.Write(c.Raw)
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	now := time.Now()

	a.mu.Lock()
	chain, known := a.chains[key]
	a.mu.Unlock()
	if known && chain.roots == opts.Roots && !now.Before(chain.notBefore) && now.Before(chain.notAfter) &&
		a.allowed(certs[0].Subject.CommonName) {
		return a.headers.AuthenticateRequest(req)
	}

	resp, ok, err := a.verified.AuthenticateRequest(req)
	if ok {
		a.remember(key, certs, opts)
	}
	return resp, ok, err
}

// remember keeps a chain upstream's authenticator accepted, valid while every certificate of
// every chain it verifies into is (the CA's included).
func (a *frontProxyAuthenticator) remember(key [sha256.Size]byte, certs []*x509.Certificate, opts x509.VerifyOptions) {
	if opts.Roots == nil {
		return
	}
	if opts.Intermediates == nil && len(certs) > 1 {
		opts.Intermediates = x509.NewCertPool()
		for _, c := range certs[1:] {
			opts.Intermediates.AddCert(c)
		}
	}
	chains, err := certs[0].Verify(opts)
	if err != nil {
		return
	}
	chain := verifiedChain{roots: opts.Roots, notBefore: certs[0].NotBefore, notAfter: certs[0].NotAfter}
	for _, c := range slices.Concat(chains...) {
		chain.notBefore = later(chain.notBefore, c.NotBefore)
		chain.notAfter = earlier(chain.notAfter, c.NotAfter)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.chains) >= maxVerifiedChains {
		clear(a.chains)
	}
	a.chains[key] = chain
}

// allowed is upstream's name check: any name when none are configured.
func (a *frontProxyAuthenticator) allowed(name string) bool {
	names := a.names.Value()
	return len(names) == 0 || slices.Contains(names, name)
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
