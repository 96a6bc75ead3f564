package server

import (
	"context"
	"testing"

	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/endpoints/filters"
	"k8s.io/apiserver/pkg/endpoints/request"
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
