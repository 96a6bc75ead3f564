package cluster

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Etcd is an etcd cluster on 127.0.0.1 that serves clients over TLS and
// requires a client certificate, as a production etcd does.
type Etcd struct {
	Members   []*EtcdMember
	CA        *CA
	Client    *Pair // a client certificate for kube-apiserver and extension servers
	Endpoints []string
}

// EtcdMember is one etcd process.
type EtcdMember struct {
	Name      string
	ClientURL string
	Process   *Process
}

// StartEtcd starts an etcd cluster of size members (their data and logs in
// dir) and waits until it has a leader.
func StartEtcd(bin, dir string, size int) (*Etcd, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	ca, err := NewCA(dir, "etcd-ca", "etcd-ca")
	if err != nil {
		return nil, err
	}
	client, err := ca.Issue(dir, "etcd-client", CertOptions{CommonName: "etcd-client"})
	if err != nil {
		return nil, err
	}
	e := &Etcd{CA: ca, Client: client}

	type ports struct{ client, peer int }
	var ps []ports
	var initial []string
	for i := range size {
		c, err := FreePort()
		if err != nil {
			return nil, err
		}
		p, err := FreePort()
		if err != nil {
			return nil, err
		}
		ps = append(ps, ports{c, p})
		initial = append(initial, fmt.Sprintf("m%d=http://127.0.0.1:%d", i, p))
	}
	for i, p := range ps {
		name := fmt.Sprintf("m%d", i)
		serving, err := ca.Issue(dir, name+"-serving", CertOptions{
			CommonName: name, Server: true, DNSNames: []string{"localhost"}, IPs: []net.IP{net.IPv4(127, 0, 0, 1)},
		})
		if err != nil {
			return nil, err
		}
		clientURL := fmt.Sprintf("https://127.0.0.1:%d", p.client)
		peerURL := fmt.Sprintf("http://127.0.0.1:%d", p.peer)
		proc, err := Start(filepath.Join(dir, name+".log"), bin,
			"--name="+name,
			"--data-dir="+filepath.Join(dir, name),
			"--listen-client-urls="+clientURL, "--advertise-client-urls="+clientURL,
			"--listen-peer-urls="+peerURL, "--initial-advertise-peer-urls="+peerURL,
			"--initial-cluster="+strings.Join(initial, ","),
			"--initial-cluster-state=new", "--initial-cluster-token=apigen-test",
			"--client-cert-auth", "--trusted-ca-file="+ca.CertFile,
			"--cert-file="+serving.CertFile, "--key-file="+serving.KeyFile,
			"--log-level=warn",
			// 8 GiB, etcd's largest suggested, not its default 2 GiB: the scale
			// envelope keeps 10^6 objects of ~1 KiB of two kinds (examples/wardle's
			// and the CRD's) on one cluster.
			"--quota-backend-bytes=8589934592",
		)
		if err != nil {
			e.Stop()
			return nil, err
		}
		e.Members = append(e.Members, &EtcdMember{Name: name, ClientURL: clientURL, Process: proc})
		e.Endpoints = append(e.Endpoints, clientURL)
	}
	hc, err := e.httpClient()
	if err != nil {
		e.Stop()
		return nil, err
	}
	for _, m := range e.Members {
		if err := Poll(60*time.Second, m.Process.Done(), func() error { return health(hc, m) }); err != nil {
			e.Stop()
			return nil, fmt.Errorf("etcd %s not healthy: %w\n%s", m.Name, err, m.Process.Describe())
		}
	}
	return e, nil
}

// TLSConfig is what a client of the members presents and trusts: the client certificate and
// the cluster's CA.
func (e *Etcd) TLSConfig() (*tls.Config, error) {
	cert, err := tls.X509KeyPair(e.Client.CertPEM, e.Client.KeyPEM)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(e.CA.Cert)
	return &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}}, nil
}

// httpClient talks to the members with the client certificate.
func (e *Etcd) httpClient() (*http.Client, error) {
	config, err := e.TLSConfig()
	if err != nil {
		return nil, err
	}
	return &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: config}}, nil
}

// health asks one member's /health, which is true only with a leader.
func health(c *http.Client, m *EtcdMember) error {
	resp, err := c.Get(m.ClientURL + "/health")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var h struct{ Health string }
	if err := json.Unmarshal(body, &h); err != nil || h.Health != "true" {
		return fmt.Errorf("%w: /health %d %s", errNotReady, resp.StatusCode, body)
	}
	return nil
}

// Flags are the etcd flags of kube-apiserver and of a generated server in
// cluster mode.
func (e *Etcd) Flags() []string {
	return []string{
		"--etcd-servers=" + strings.Join(e.Endpoints, ","),
		"--etcd-cafile=" + e.CA.CertFile,
		"--etcd-certfile=" + e.Client.CertFile,
		"--etcd-keyfile=" + e.Client.KeyFile,
	}
}

// Stop ends every member.
func (e *Etcd) Stop() {
	for _, m := range e.Members {
		m.Process.Stop(10 * time.Second)
	}
}
