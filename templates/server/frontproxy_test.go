package server

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	"k8s.io/apiserver/pkg/authentication/request/headerrequest"
	x509request "k8s.io/apiserver/pkg/authentication/request/x509"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/endpoints/filters"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	certutil "k8s.io/client-go/util/cert"
)

func TestProxyTrustingAuthorizerAllowsOnlyTheProxiedRequestItself(t *testing.T) {
	requestCtx := func(mark *proxied) context.Context {
		ctx := request.WithUser(context.Background(), &user.DefaultInfo{Name: "alice", Groups: []string{"system:authenticated"}})
		ctx = request.WithRequestInfo(ctx, &request.RequestInfo{
			IsResourceRequest: true, Path: "/apis/wardle.example.com/v1beta1/namespaces/ns/flunders/f",
			Verb: "get", APIGroup: "wardle.example.com", APIVersion: "v1beta1",
			Namespace: "ns", Resource: "flunders", Name: "f",
		})
		if mark != nil {
			ctx = context.WithValue(ctx, proxiedKey{}, mark)
		}
		return ctx
	}
	own := func(ctx context.Context) authorizer.Attributes {
		attrs, err := filters.GetAuthorizerAttributes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return attrs
	}
	other := func(ctx context.Context, change func(*authorizer.AttributesRecord)) authorizer.Attributes {
		attrs := *own(ctx).(*authorizer.AttributesRecord)
		change(&attrs)
		return &attrs
	}

	proxiedCtx := requestCtx(&proxied{byFrontProxy: true})
	for _, c := range []struct {
		what    string
		ctx     context.Context
		attrs   authorizer.Attributes
		allowed bool
	}{
		{"the proxied request's own attributes", proxiedCtx, own(proxiedCtx), true},
		{"another verb on the same object", proxiedCtx, other(proxiedCtx, func(a *authorizer.AttributesRecord) { a.Verb = "delete" }), false},
		{"another object", proxiedCtx, other(proxiedCtx, func(a *authorizer.AttributesRecord) { a.Name = "g" }), false},
		{"another user (an admission plugin's check)", proxiedCtx, other(proxiedCtx, func(a *authorizer.AttributesRecord) { a.User = &user.DefaultInfo{Name: "bob"} }), false},
		{"a subresource", proxiedCtx, other(proxiedCtx, func(a *authorizer.AttributesRecord) { a.Subresource = "status" }), false},
		{"a request another authenticator accepted", requestCtx(&proxied{}), own(requestCtx(&proxied{})), false},
		{"a request outside the handler chain", requestCtx(nil), own(requestCtx(nil)), false},
	} {
		// The reviewer stands for the delegating authorizer: it denies and counts.
		asked := 0
		a := proxyTrustingAuthorizer{authorizer.AuthorizerFunc(func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
			asked++
			return authorizer.DecisionDeny, "no grant", nil
		})}
		decision, _, err := a.Authorize(c.ctx, c.attrs)
		if err != nil {
			t.Fatal(err)
		}
		if got := decision == authorizer.DecisionAllow; got != c.allowed {
			t.Errorf("%s: allowed %v, want %v", c.what, got, c.allowed)
		}
		conditional := a.ConditionsAwareAuthorize(c.ctx, c.attrs)
		if got := conditional.IsAllow(); got != c.allowed {
			t.Errorf("%s: conditions-aware decision allowed %v, want %v", c.what, got, c.allowed)
		}
		if want := map[bool]int{true: 0, false: 2}[c.allowed]; asked != want {
			t.Errorf("%s: asked the reviewer %d times, want %d", c.what, asked, want)
		}
	}
}

// switchableCA is a request-header CA bundle that a test can replace, as a rotated
// extension-apiserver-authentication ConfigMap replaces it.
type switchableCA struct {
	current dynamiccertificates.CAContentProvider
}

func (s *switchableCA) Name() string                              { return "front-proxy-ca" }
func (s *switchableCA) CurrentCABundleContent() []byte            { return s.current.CurrentCABundleContent() }
func (s *switchableCA) VerifyOptions() (x509.VerifyOptions, bool) { return s.current.VerifyOptions() }
func (s *switchableCA) AddListener(dynamiccertificates.Listener)  {}

// frontProxyFixture is a request-header CA and a way to make requests as a front proxy.
type frontProxyFixture struct {
	t  *testing.T
	ca *ca
}

func newFrontProxyFixture(t *testing.T, name string) *frontProxyFixture {
	t.Helper()
	dir := t.TempDir()
	c := &ca{caFile: filepath.Join(dir, "ca.crt")}
	if err := c.createCA(filepath.Join(dir, "ca.key"), name); err != nil {
		t.Fatal(err)
	}
	return &frontProxyFixture{t: t, ca: c}
}

func (f *frontProxyFixture) provider() dynamiccertificates.CAContentProvider {
	f.t.Helper()
	p, err := dynamiccertificates.NewStaticCAContent("front-proxy-ca", f.ca.caPEM)
	if err != nil {
		f.t.Fatal(err)
	}
	return p
}

// cert issues a client certificate named cn, valid until notAfter (the CA's end when zero).
func (f *frontProxyFixture) cert(cn string, notAfter time.Time) *x509.Certificate {
	f.t.Helper()
	certPEM, _, err := f.ca.issue(&x509.Certificate{
		Subject: pkix.Name{CommonName: cn}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, NotAfter: notAfter,
	})
	if err != nil {
		f.t.Fatal(err)
	}
	certs, err := certutil.ParseCertsPEM(certPEM)
	if err != nil {
		f.t.Fatal(err)
	}
	return certs[0]
}

// proxiedRequest is a request from a client presenting cert, for the user in X-Remote-User.
func proxiedRequest(cert *x509.Certificate, user string) *http.Request {
	req, _ := http.NewRequest(http.MethodGet, "https://server/apis", nil)
	req.Header.Set("X-Remote-User", user)
	req.Header.Set("X-Remote-Group", "staff")
	if cert != nil {
		req.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{cert}}
	}
	return req
}

func requestHeaderConfig(ca dynamiccertificates.CAContentProvider, names *[]string) *authenticatorfactory.RequestHeaderConfig {
	return &authenticatorfactory.RequestHeaderConfig{
		UsernameHeaders:     headerrequest.StaticStringSlice{"X-Remote-User"},
		UIDHeaders:          headerrequest.StaticStringSlice{"X-Remote-Uid"},
		GroupHeaders:        headerrequest.StaticStringSlice{"X-Remote-Group"},
		ExtraHeaderPrefixes: headerrequest.StaticStringSlice{"X-Remote-Extra-"},
		CAContentProvider:   ca,
		AllowedClientNames:  x509request.StringSliceProviderFunc(func() []string { return *names }),
	}
}

// TestFrontProxyAuthenticatorRemembersOnlyWhatStillHolds: the front proxy's certificate is
// verified once, and the remembered verification never lets through what upstream's
// authenticator would refuse: a name no longer allowed, a rotated CA, an expired certificate.
func TestFrontProxyAuthenticatorRemembersOnlyWhatStillHolds(t *testing.T) {
	front := newFrontProxyFixture(t, "front-proxy-ca")
	names := []string{"front-proxy-client"}
	bundle := &switchableCA{current: front.provider()}
	a := newFrontProxyAuthenticator(requestHeaderConfig(bundle, &names))
	proxy := front.cert("front-proxy-client", time.Time{})

	authenticated := func(req *http.Request) string {
		t.Helper()
		resp, ok, _ := a.AuthenticateRequest(req)
		if !ok {
			return ""
		}
		return resp.User.GetName()
	}
	for _, user := range []string{"alice", "bob"} { // the second is served from memory
		if got := authenticated(proxiedRequest(proxy, user)); got != user {
			t.Errorf("the front proxy's request for %s authenticated as %q", user, got)
		}
	}
	if len(a.chains) != 1 {
		t.Errorf("%d chains remembered after two requests with one certificate; want 1", len(a.chains))
	}
	if got := authenticated(proxiedRequest(nil, "alice")); got != "" {
		t.Errorf("X-Remote-User without a certificate authenticated as %q", got)
	}
	other := newFrontProxyFixture(t, "another-ca")
	if got := authenticated(proxiedRequest(other.cert("front-proxy-client", time.Time{}), "alice")); got != "" {
		t.Errorf("a certificate of another CA authenticated as %q", got)
	}

	names = []string{"someone-else"}
	if got := authenticated(proxiedRequest(proxy, "alice")); got != "" {
		t.Errorf("a remembered certificate whose name is no longer allowed authenticated as %q", got)
	}
	names = []string{"front-proxy-client"}

	bundle.current = newFrontProxyFixture(t, "rotated-ca").provider()
	if got := authenticated(proxiedRequest(proxy, "alice")); got != "" {
		t.Errorf("a remembered certificate of a CA no longer in the bundle authenticated as %q", got)
	}
	bundle.current = front.provider()

	shortLived := front.cert("front-proxy-client", time.Now().Add(1500*time.Millisecond))
	if got := authenticated(proxiedRequest(shortLived, "alice")); got != "alice" {
		t.Fatalf("a valid short-lived certificate authenticated as %q", got)
	}
	time.Sleep(time.Until(shortLived.NotAfter) + 100*time.Millisecond)
	if got := authenticated(proxiedRequest(shortLived, "alice")); got != "" {
		t.Errorf("a remembered certificate that expired authenticated as %q", got)
	}
}

// BenchmarkFrontProxyAuthentication: a proxied request's authentication, by upstream's
// request-header authenticator and by the one that remembers the verification.
func BenchmarkFrontProxyAuthentication(b *testing.B) {
	t := &testing.T{}
	front := newFrontProxyFixture(t, "front-proxy-ca")
	names := []string{"front-proxy-client"}
	rh := requestHeaderConfig(front.provider(), &names)
	proxy := front.cert("front-proxy-client", time.Time{})
	for _, c := range []struct {
		name string
		a    authenticator.Request
	}{
		{"upstream", headerrequest.NewDynamicVerifyOptionsSecure(rh.CAContentProvider.VerifyOptions, rh.AllowedClientNames,
			rh.UsernameHeaders, rh.UIDHeaders, rh.GroupHeaders, rh.ExtraHeaderPrefixes)},
		{"remembered", newFrontProxyAuthenticator(rh)},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, ok, err := c.a.AuthenticateRequest(proxiedRequest(proxy, "alice")); !ok {
					b.Fatal(err)
				}
			}
		})
	}
}

// notLoadedCA is a CA provider whose informer has not filled it yet.
type notLoadedCA struct {
	dynamiccertificates.CAContentProvider
}

func (notLoadedCA) VerifyOptions() (x509.VerifyOptions, bool) { return x509.VerifyOptions{}, false }

func TestFrontProxyCAHoldsReadinessUntilLoaded(t *testing.T) {
	ca := newFrontProxyFixture(t, "front-proxy-ca").provider()
	headers := func(names ...string) headerrequest.StringSliceProvider {
		return headerrequest.StaticStringSlice(names)
	}
	for _, c := range []struct {
		what  string
		rh    *authenticatorfactory.RequestHeaderConfig
		ready bool
	}{
		{"a front proxy, its CA not loaded",
			&authenticatorfactory.RequestHeaderConfig{UsernameHeaders: headers("X-Remote-User"), CAContentProvider: notLoadedCA{}}, false},
		{"a front proxy, its CA loaded",
			&authenticatorfactory.RequestHeaderConfig{UsernameHeaders: headers("X-Remote-User"), CAContentProvider: ca}, true},
		{"no front proxy in the cluster",
			&authenticatorfactory.RequestHeaderConfig{UsernameHeaders: headers(), CAContentProvider: notLoadedCA{}}, true},
	} {
		if err := frontProxyCALoaded(c.rh); (err == nil) != c.ready {
			t.Errorf("%s: ready %v (%v), want %v", c.what, err == nil, err, c.ready)
		}
	}
}
