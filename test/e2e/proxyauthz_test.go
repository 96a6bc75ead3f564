package e2e

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apigen-dev/apigen/test/cluster"
)

// checkProxiedNotReviewed checks that the replicas do not send kube-apiserver
// a SubjectAccessReview for a request kube-apiserver authorized and proxied
// (--authorization-trust-front-proxy, on by default), while a request that
// reaches them directly is still reviewed and refused without a grant.
func (a *aggregation) checkProxiedNotReviewed(t *testing.T) {
	asProxy := a.replicaClient(t, a.clientCert(t, a.kas.FrontProxyCA, "metrics-proxy", cluster.FrontProxyClientName))
	// reviews is how many SubjectAccessReviews the replicas have sent, read
	// as a system:masters user through the front proxy's certificate: the
	// delegating authorizer allows that group without a review, so reading
	// adds none.
	reviews := func() int {
		t.Helper()
		total := 0
		for _, port := range a.ports {
			req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("https://127.0.0.1:%d/metrics", port), nil)
			req.Header.Set("X-Remote-User", "metrics-reader")
			req.Header.Set("X-Remote-Group", "system:masters")
			code, body, err := doRequest(asProxy, req)
			if err != nil || code != http.StatusOK {
				t.Fatalf("reading replica metrics on port %d: %d %v %.300s", port, code, err, body)
			}
			for _, line := range strings.Split(body, "\n") {
				if !strings.HasPrefix(line, "apiserver_delegated_authz_request_total{") {
					continue
				}
				n, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
				if err != nil {
					t.Fatalf("metric line %q: %v", line, err)
				}
				total += int(n)
			}
		}
		return total
	}

	const n = 5
	for i := range n {
		a.admin.okStdin(t, fmt.Sprintf("apiVersion: wardle.example.com/v1alpha1\nkind: Flunder\nmetadata:\n  name: trusted-%d\n  namespace: default\n", i), "create", "-f", "-")
	}
	a.admin.ok(t, "create", "role", "flunder-getter", "-n", "default", "--verb=get", "--resource=flunders."+wardleGroup)
	a.admin.ok(t, "create", "rolebinding", "carol-gets", "-n", "default", "--role=flunder-getter", "--user=carol",
		"--serviceaccount=default:direct-reader")
	kc, err := a.kas.UserKubeconfig("carol")
	if err != nil {
		t.Fatal(err)
	}
	carol := &kubectl{bin: a.admin.bin, kubeconfig: kc, cacheDir: filepath.Join(a.work, "carol-cache")}
	// kube-apiserver's RBAC sees the binding within moments.
	if err := poll(30*time.Second, func() error {
		if r := carol.run("", "get", "flunder", "trusted-0", "-n", "default", "-o", "name"); r.ExitCode != 0 {
			return fmt.Errorf("%s", r)
		}
		return nil
	}); err != nil {
		t.Fatalf("carol with get granted cannot get a flunder: %v", err)
	}

	// Each get names another object: a review for each would miss the
	// delegating authorizer's cache.
	before := reviews()
	for i := 1; i < n; i++ {
		carol.ok(t, "get", "flunder", "trusted-"+strconv.Itoa(i), "-n", "default", "-o", "name")
	}
	if after := reviews(); after != before {
		t.Errorf("%d gets kube-apiserver authorized and proxied cost %d SubjectAccessReviews; want none", n-1, after-before)
	}
	if r := carol.run("", "delete", "flunder", "trusted-1", "-n", "default"); r.ExitCode == 0 || !strings.Contains(r.Stderr, "Forbidden") {
		t.Errorf("carol with only get deletes a flunder: want Forbidden, got:\n%s", r)
	}

	// Directly, with a ServiceAccount token: reviewed, and answered by RBAC.
	direct := func(sa string) (int, string) {
		t.Helper()
		a.admin.ok(t, "create", "serviceaccount", sa, "-n", "default")
		token := strings.TrimSpace(a.admin.ok(t, "create", "token", sa, "-n", "default"))
		req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("https://127.0.0.1:%d/apis/%s/v1alpha1/namespaces/default/flunders/trusted-2", a.ports[0], wardleGroup), nil)
		req.Header.Set("Authorization", "Bearer "+token)
		code, body, err := doRequest(a.replicaClient(t), req)
		if err != nil {
			t.Fatal(err)
		}
		return code, body
	}
	before = reviews()
	if code, body := direct("direct-reader"); code != http.StatusOK {
		t.Errorf("a ServiceAccount granted get, directly: %d %.300s; want 200", code, body)
	}
	if code, body := direct("direct-nobody"); code != http.StatusForbidden {
		t.Errorf("a ServiceAccount without a grant, directly: %d %.300s; want 403", code, body)
	}
	if after := reviews(); after-before < 2 {
		t.Errorf("two direct requests cost %d SubjectAccessReviews; want one each", after-before)
	}
}
