package server

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The bundled etcd of config/generated: a StatefulSet <service>-etcd of
// etcdMembers members under a headless Service of the same name, a client
// Service <service>-etcd-client, and three kubernetes.io/tls Secrets (each
// also holding ca.crt, the etcd CA) that the certs command writes into
// etcdCertsDir of --dir. apigen's manifests generator uses the same names.
const (
	etcdMembers  = 3
	etcdCertsDir = "etcd"
)

// etcdNames are the bundled etcd's object names for a server's Service.
type etcdNames struct {
	namespace, service, statefulSet, clientService string
}

func newEtcdNames(service, namespace string) etcdNames {
	return etcdNames{namespace: namespace, service: service, statefulSet: service + "-etcd", clientService: service + "-etcd-client"}
}

// etcdCert is one certificate the certs command issues for etcd, and the
// Secret it goes into.
type etcdCert struct {
	file, secret string
	tmpl         *x509.Certificate
}

// certs are the members' server and peer certificates, for each member's
// name under the headless Service (and a wildcard, so that more members need
// no new certificate), the client Service's names, and localhost with the
// loopback addresses as kubeadm's etcd certificates have them (etcdctl in the
// pod, kubectl port-forward); and the client certificate of the API server
// and the backup Job. Members dial each other and etcd's gateway dials its
// own member, so server and peer certificates are also client certificates.
func (n etcdNames) certs(validity time.Duration) []etcdCert {
	var dns []string
	for i := range etcdMembers {
		dns = append(dns, fmt.Sprintf("%s-%d.%s.%s.svc", n.statefulSet, i, n.statefulSet, n.namespace))
	}
	dns = append(dns, "*."+n.statefulSet+"."+n.namespace+".svc", "*."+n.statefulSet+"."+n.namespace+".svc.cluster.local")
	dns = append(dns, serviceDNSNames(n.clientService, n.namespace)...)
	dns = append(dns, "localhost")
	ips := []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
	both := []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}
	notAfter := time.Now().Add(validity)
	member := func() *x509.Certificate {
		return &x509.Certificate{Subject: pkix.Name{CommonName: n.statefulSet}, DNSNames: dns, IPAddresses: ips, ExtKeyUsage: both, NotAfter: notAfter}
	}
	return []etcdCert{
		{file: "server", secret: n.statefulSet + "-server", tmpl: member()},
		{file: "peer", secret: n.statefulSet + "-peer", tmpl: member()},
		{file: "client", secret: n.statefulSet + "-client", tmpl: &x509.Certificate{
			Subject: pkix.Name{CommonName: n.service}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, NotAfter: notAfter,
		}},
	}
}

// writeEtcdCerts loads or creates the etcd CA in <dir>/etcd and issues every
// etcd certificate anew; it returns the component's secretGenerator entries.
func (o *certsOptions) writeEtcdCerts(name string) (created bool, generators string, err error) {
	dir := filepath.Join(o.dir, etcdCertsDir)
	c := &ca{caFile: filepath.Join(dir, caCertFile)}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false, "", err
	}
	if created, err = c.loadOrCreateCA(filepath.Join(dir, caKeyFile), name+"-etcd-ca"); err != nil {
		return false, "", err
	}
	n := newEtcdNames(o.service, o.namespace)
	var b strings.Builder
	for _, e := range n.certs(o.validity) {
		certPEM, keyPEM, err := c.issue(e.tmpl)
		if err != nil {
			return false, "", err
		}
		if err := writeFileAtomic(filepath.Join(dir, e.file+".key"), keyPEM, 0o600); err != nil {
			return false, "", err
		}
		if err := writeFileAtomic(filepath.Join(dir, e.file+".crt"), certPEM, 0o644); err != nil {
			return false, "", err
		}
		// The label is the external-etcd component's selector: it removes these
		// Secrets with the rest of the bundled etcd.
		fmt.Fprintf(&b, `- name: %s
  namespace: %s
  type: kubernetes.io/tls
  files:
  - ca.crt=%s/ca.crt
  - tls.crt=%[3]s/%[4]s.crt
  - tls.key=%[3]s/%[4]s.key
  options:
    disableNameSuffixHash: true
    labels:
      app.kubernetes.io/instance: %[5]s
`, e.secret, o.namespace, etcdCertsDir, e.file, n.statefulSet)
	}
	return created, b.String(), nil
}
