package cluster

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// FrontProxyClientName is the common name of kube-apiserver's proxy client
// certificate, the only name extension servers accept request headers from.
const FrontProxyClientName = "front-proxy-client"

// KubeAPIServer is a kube-apiserver on 127.0.0.1 configured as kubeadm
// configures one for aggregation: RBAC, client certificates, service-account
// tokens, and the front-proxy (request header) settings that it publishes in
// kube-system/extension-apiserver-authentication for extension servers.
type KubeAPIServer struct {
	URL     string
	Dir     string
	Process *Process

	ServingCA    *CA // signed the serving certificate; the kubeconfigs trust it
	ClientCA     *CA // client certificates of users
	FrontProxyCA *CA // the request-header CA
	// AdminKubeconfig is a client certificate in group system:masters.
	AdminKubeconfig string
}

// StartKubeAPIServer starts kube-apiserver on etcd, keeping its files in
// dir, with extra flags after its own (--runtime-config=api/all=true, say), and
// waits for /readyz.
func StartKubeAPIServer(bin, dir string, etcd *Etcd, extra ...string) (*KubeAPIServer, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	k := &KubeAPIServer{URL: "https://127.0.0.1:" + strconv.Itoa(port), Dir: dir}
	if k.ServingCA, err = NewCA(dir, "serving-ca", "kube-apiserver-ca"); err != nil {
		return nil, err
	}
	serving, err := k.ServingCA.Issue(dir, "serving", CertOptions{
		CommonName: "kube-apiserver", Server: true,
		DNSNames: []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
		IPs:      []net.IP{net.IPv4(127, 0, 0, 1)},
	})
	if err != nil {
		return nil, err
	}
	if k.ClientCA, err = NewCA(dir, "client-ca", "kubernetes-client-ca"); err != nil {
		return nil, err
	}
	if k.FrontProxyCA, err = NewCA(dir, "front-proxy-ca", "front-proxy-ca"); err != nil {
		return nil, err
	}
	proxyClient, err := k.FrontProxyCA.Issue(dir, "front-proxy-client", CertOptions{CommonName: FrontProxyClientName})
	if err != nil {
		return nil, err
	}
	saPub, saKey, err := writeKeyPair(dir, "sa")
	if err != nil {
		return nil, err
	}

	args := []string{
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", "--secure-port=" + strconv.Itoa(port),
		"--tls-cert-file=" + serving.CertFile, "--tls-private-key-file=" + serving.KeyFile,
		"--client-ca-file=" + k.ClientCA.CertFile,
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file=" + saPub, "--service-account-signing-key-file=" + saKey,
		"--service-cluster-ip-range=10.96.0.0/16",
		// Front proxy: how kube-apiserver tells an extension server who the user is.
		"--requestheader-client-ca-file=" + k.FrontProxyCA.CertFile,
		"--requestheader-allowed-names=" + FrontProxyClientName,
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-uid-headers=X-Remote-Uid",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--proxy-client-cert-file=" + proxyClient.CertFile, "--proxy-client-key-file=" + proxyClient.KeyFile,
		// On loopback: the endpoint reconciler refuses 127.0.0.1 as the
		// kubernetes Service's endpoint, and APIServices reach their servers
		// through the Service (ExternalName in tests), not through endpoints.
		"--endpoint-reconciler-type=none",
		"--enable-aggregator-routing=false",
	}
	args = append(args, etcd.Flags()...)
	args = append(args, extra...)
	if k.Process, err = Start(filepath.Join(dir, "kube-apiserver.log"), bin, args...); err != nil {
		return nil, err
	}

	if k.AdminKubeconfig, err = k.UserKubeconfig("admin", "system:masters"); err != nil {
		k.Stop()
		return nil, err
	}
	if err := k.waitReady(); err != nil {
		k.Stop()
		return nil, err
	}
	return k, nil
}

func (k *KubeAPIServer) waitReady() error {
	cfg, err := clientcmd.BuildConfigFromFlags("", k.AdminKubeconfig)
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	err = Poll(90*time.Second, k.Process.Done(), func() error {
		body, err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(context.TODO())
		if err != nil {
			return fmt.Errorf("%w: /readyz: %v %s", errNotReady, err, body)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("kube-apiserver not ready: %w\n%s", err, k.Process.Describe())
	}
	return nil
}

// UserKubeconfig issues a client certificate for user in groups and writes a
// kubeconfig for it; it returns the file's path.
func (k *KubeAPIServer) UserKubeconfig(user string, groups ...string) (string, error) {
	pair, err := k.ClientCA.Issue(k.Dir, "user-"+user, CertOptions{CommonName: user, Groups: groups})
	if err != nil {
		return "", err
	}
	return k.writeKubeconfig(user, &clientcmdapi.AuthInfo{ClientCertificateData: pair.CertPEM, ClientKeyData: pair.KeyPEM})
}

// TokenKubeconfig writes a kubeconfig that authenticates with a bearer token
// (a service account's) and returns its path.
func (k *KubeAPIServer) TokenKubeconfig(name, token string) (string, error) {
	return k.writeKubeconfig(name, &clientcmdapi.AuthInfo{Token: token})
}

func (k *KubeAPIServer) writeKubeconfig(name string, auth *clientcmdapi.AuthInfo) (string, error) {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["test"] = &clientcmdapi.Cluster{Server: k.URL, CertificateAuthorityData: k.ServingCA.CertPEM}
	cfg.AuthInfos[name] = auth
	cfg.Contexts["test"] = &clientcmdapi.Context{Cluster: "test", AuthInfo: name}
	cfg.CurrentContext = "test"
	path := filepath.Join(k.Dir, name+".kubeconfig")
	return path, clientcmd.WriteToFile(*cfg, path)
}

// AdminConfig is a client-go config for the admin kubeconfig.
func (k *KubeAPIServer) AdminConfig() (*rest.Config, error) {
	return clientcmd.BuildConfigFromFlags("", k.AdminKubeconfig)
}

// Stop ends kube-apiserver.
func (k *KubeAPIServer) Stop() { k.Process.Stop(15 * time.Second) }
