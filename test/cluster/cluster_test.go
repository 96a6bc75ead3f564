package cluster

import (
	"context"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// TestControlPlane starts the real etcd cluster and kube-apiserver and checks
// what extension servers rely on: kube-apiserver publishes the front-proxy
// settings in kube-system/extension-apiserver-authentication, and a user's
// client certificate authenticates.
func TestControlPlane(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and kube-apiserver; skipped in -short mode")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	bins, err := Build(root)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	etcd, err := StartEtcd(bins.Etcd, filepath.Join(dir, "etcd"), 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(etcd.Stop)
	// Room for the scale envelope's 10^6 objects of two kinds.
	hc, err := etcd.httpClient()
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := hc.Get(etcd.Members[0].ClientURL + "/metrics"); err != nil {
		t.Error(err)
	} else {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(body), "\netcd_server_quota_backend_bytes 8.589934592e+09\n") {
			t.Errorf("etcd's quota is not 8 GiB: %s", regexp.MustCompile(`(?m)^etcd_server_quota_backend_bytes .*$`).Find(body))
		}
	}
	kas, err := StartKubeAPIServer(bins.KubeAPIServer, filepath.Join(dir, "kas"), etcd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(kas.Stop)

	cfg, err := kas.AdminConfig()
	if err != nil {
		t.Fatal(err)
	}
	cs := kubernetes.NewForConfigOrDie(cfg)
	cm, err := cs.CoreV1().ConfigMaps("kube-system").Get(context.Background(), "extension-apiserver-authentication", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("extension-apiserver-authentication: %v", err)
	}
	if got := cm.Data["requestheader-client-ca-file"]; strings.TrimSpace(got) != strings.TrimSpace(string(kas.FrontProxyCA.CertPEM)) {
		t.Errorf("requestheader-client-ca-file is not the front-proxy CA:\n%s", got)
	}
	if got := cm.Data["requestheader-allowed-names"]; got != `["`+FrontProxyClientName+`"]` {
		t.Errorf("requestheader-allowed-names = %s", got)
	}
	if got := cm.Data["client-ca-file"]; !strings.Contains(got, strings.TrimSpace(string(kas.ClientCA.CertPEM))) {
		t.Errorf("client-ca-file does not hold the client CA:\n%s", got)
	}

	// A user's certificate authenticates (403 without a grant, not 401).
	kc, err := kas.UserKubeconfig("nobody")
	if err != nil {
		t.Fatal(err)
	}
	ucfg, err := clientcmd.BuildConfigFromFlags("", kc)
	if err != nil {
		t.Fatal(err)
	}
	user := kubernetes.NewForConfigOrDie(ucfg)
	review, err := user.AuthenticationV1().SelfSubjectReviews().Create(context.Background(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil || review.Status.UserInfo.Username != "nobody" {
		t.Errorf("SelfSubjectReview with the user's certificate: %v, %+v", err, review)
	}
	if _, err := user.CoreV1().Namespaces().List(context.Background(), metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("listing namespaces without a grant: %v, want Forbidden", err)
	}
}
