package server

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"k8s.io/apiserver/pkg/authentication/user"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

// adminUser is the user name in the admin kubeconfig's client certificate.
const adminUser = "apigen-admin"

// ca is a certificate authority kept in two files, its certificate (caFile)
// and its key. Local mode keeps one in <data-dir>/pki; the certs command keeps
// one beside the serving certificate it issues.
type ca struct {
	caFile string
	caPEM  []byte
	caCert *x509.Certificate
	caKey  crypto.Signer
}

// localPKI is local mode's certificate authority and the admin credentials it
// issued. They live in <data-dir>/pki and are reused on every start, so a
// kubeconfig written once keeps working.
type localPKI struct {
	ca

	adminCertPEM, adminKeyPEM []byte
}

func loadOrCreatePKI(dir, name string) (*localPKI, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	p := &localPKI{ca: ca{caFile: filepath.Join(dir, "ca.crt")}}
	if _, err := p.loadOrCreateCA(filepath.Join(dir, "ca.key"), name+"-local-ca"); err != nil {
		return nil, fmt.Errorf("local CA in %s: %w", dir, err)
	}
	if err := p.loadOrIssueAdmin(filepath.Join(dir, "admin.crt"), filepath.Join(dir, "admin.key")); err != nil {
		return nil, fmt.Errorf("admin certificate in %s: %w", dir, err)
	}
	return p, nil
}

// loadOrCreateCA loads the CA from c.caFile and keyFile, or creates it when
// c.caFile does not exist yet; created reports which. A CA that cannot sign
// (a key that does not match, an expired certificate) is an error rather
// than replaced: whoever trusts it would stop trusting what it issues.
func (c *ca) loadOrCreateCA(keyFile, commonName string) (created bool, err error) {
	certPEM, err := os.ReadFile(c.caFile)
	if errors.Is(err, fs.ErrNotExist) {
		return true, c.createCA(keyFile, commonName)
	}
	if err != nil {
		return false, err
	}
	certs, err := certutil.ParseCertsPEM(certPEM)
	if err != nil {
		return false, fmt.Errorf("%s: %w", c.caFile, err)
	}
	key, err := keyutil.PrivateKeyFromFile(keyFile)
	if err != nil {
		return false, fmt.Errorf("%s exists but its key does not: %w", c.caFile, err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return false, fmt.Errorf("%s: not a signing key", keyFile)
	}
	cert := certs[0]
	switch {
	case !cert.IsCA:
		return false, fmt.Errorf("%s is not a CA certificate", c.caFile)
	case !publicKeysEqual(cert.PublicKey, signer.Public()):
		return false, fmt.Errorf("%s does not belong to the CA certificate %s", keyFile, c.caFile)
	case time.Now().After(cert.NotAfter):
		return false, fmt.Errorf("the CA certificate %s expired on %s; remove it and %s to create a new CA",
			c.caFile, cert.NotAfter.Format(time.RFC3339), keyFile)
	}
	c.caPEM, c.caCert, c.caKey = certPEM, cert, signer
	return false, nil
}

func publicKeysEqual(a, b crypto.PublicKey) bool {
	eq, ok := a.(interface{ Equal(crypto.PublicKey) bool })
	return ok && eq.Equal(b)
}

func (c *ca) createCA(keyFile, commonName string) error {
	key, err := newKey()
	if err != nil {
		return err
	}
	cert, err := certutil.NewSelfSignedCACert(certutil.Config{CommonName: commonName}, key)
	if err != nil {
		return err
	}
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return err
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: certutil.CertificateBlockType, Bytes: cert.Raw})
	// The certificate is written last: its presence means the CA is complete.
	if err := writeFileAtomic(keyFile, keyPEM, 0o600); err != nil {
		return err
	}
	if err := writeFileAtomic(c.caFile, certPEM, 0o644); err != nil {
		return err
	}
	c.caPEM, c.caCert, c.caKey = certPEM, cert, key
	return nil
}

// loadOrIssueAdmin reuses the admin certificate while the CA still vouches for
// it, and issues a new one otherwise (first start, or a replaced CA).
func (p *localPKI) loadOrIssueAdmin(certFile, keyFile string) error {
	certPEM, certErr := os.ReadFile(certFile)
	keyPEM, keyErr := os.ReadFile(keyFile)
	if certErr == nil && keyErr == nil && p.signed(certPEM, keyPEM) {
		p.adminCertPEM, p.adminKeyPEM = certPEM, keyPEM
		return nil
	}

	certPEM, keyPEM, err := p.issue(&x509.Certificate{
		// The delegating authorizer always allows system:masters.
		Subject:     pkix.Name{CommonName: adminUser, Organization: []string{user.SystemPrivilegedGroup}},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	if err != nil {
		return err
	}
	if err := writeFileAtomic(keyFile, keyPEM, 0o600); err != nil {
		return err
	}
	if err := writeFileAtomic(certFile, certPEM, 0o644); err != nil {
		return err
	}
	p.adminCertPEM, p.adminKeyPEM = certPEM, keyPEM
	return nil
}

// signed reports whether certPEM and keyPEM are a matching pair, issued by
// this CA and not expired.
func (c *ca) signed(certPEM, keyPEM []byte) bool {
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return false
	}
	return pair.Leaf.CheckSignatureFrom(c.caCert) == nil && time.Now().Before(pair.Leaf.NotAfter)
}

// issueServing issues a serving certificate for the loopback names and for
// bindIP when the server listens on a specific other address.
func (p *localPKI) issueServing(bindIP net.IP) (certPEM, keyPEM []byte, err error) {
	ips := []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
	if !bindIP.IsUnspecified() && !bindIP.IsLoopback() {
		ips = append(ips, bindIP)
	}
	return p.issue(&x509.Certificate{
		Subject:     pkix.Name{CommonName: "localhost"},
		DNSNames:    []string{"localhost"},
		IPAddresses: ips,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
}

// issue signs tmpl with a fresh key. It is valid until tmpl.NotAfter, or as
// long as the CA is when that is zero or later.
func (c *ca) issue(tmpl *x509.Certificate) (certPEM, keyPEM []byte, err error) {
	key, err := newKey()
	if err != nil {
		return nil, nil, err
	}
	if tmpl.SerialNumber, err = rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128)); err != nil {
		return nil, nil, err
	}
	tmpl.NotBefore = time.Now().Add(-time.Minute) // tolerate a little clock skew
	if tmpl.NotAfter.IsZero() || tmpl.NotAfter.After(c.caCert.NotAfter) {
		tmpl.NotAfter = c.caCert.NotAfter
	}
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, c.caCert, key.Public(), c.caKey)
	if err != nil {
		return nil, nil, err
	}
	if keyPEM, err = keyutil.MarshalPrivateKeyToPEM(key); err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: certutil.CertificateBlockType, Bytes: der}), keyPEM, nil
}

func newKey() (*ecdsa.PrivateKey, error) {
	return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
}
