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

// localPKI is local mode's certificate authority and the admin credentials it
// issued. They live in <data-dir>/pki and are reused on every start, so a
// kubeconfig written once keeps working.
type localPKI struct {
	caFile string
	caPEM  []byte
	caCert *x509.Certificate
	caKey  crypto.Signer

	adminCertPEM, adminKeyPEM []byte
}

func loadOrCreatePKI(dir, name string) (*localPKI, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	p := &localPKI{caFile: filepath.Join(dir, "ca.crt")}
	if err := p.loadOrCreateCA(filepath.Join(dir, "ca.key"), name+"-local-ca"); err != nil {
		return nil, fmt.Errorf("local CA in %s: %w", dir, err)
	}
	if err := p.loadOrIssueAdmin(filepath.Join(dir, "admin.crt"), filepath.Join(dir, "admin.key")); err != nil {
		return nil, fmt.Errorf("admin certificate in %s: %w", dir, err)
	}
	return p, nil
}

func (p *localPKI) loadOrCreateCA(keyFile, commonName string) error {
	certPEM, err := os.ReadFile(p.caFile)
	if errors.Is(err, fs.ErrNotExist) {
		return p.createCA(keyFile, commonName)
	}
	if err != nil {
		return err
	}
	certs, err := certutil.ParseCertsPEM(certPEM)
	if err != nil {
		return err
	}
	key, err := keyutil.PrivateKeyFromFile(keyFile)
	if err != nil {
		return err
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return fmt.Errorf("%s: not a signing key", keyFile)
	}
	p.caPEM, p.caCert, p.caKey = certPEM, certs[0], signer
	return nil
}

func (p *localPKI) createCA(keyFile, commonName string) error {
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
	if err := writeFileAtomic(p.caFile, certPEM, 0o644); err != nil {
		return err
	}
	p.caPEM, p.caCert, p.caKey = certPEM, cert, key
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
func (p *localPKI) signed(certPEM, keyPEM []byte) bool {
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return false
	}
	return pair.Leaf.CheckSignatureFrom(p.caCert) == nil && time.Now().Before(pair.Leaf.NotAfter)
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

// issue signs tmpl with a fresh key, valid as long as the CA is.
func (p *localPKI) issue(tmpl *x509.Certificate) (certPEM, keyPEM []byte, err error) {
	key, err := newKey()
	if err != nil {
		return nil, nil, err
	}
	if tmpl.SerialNumber, err = rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128)); err != nil {
		return nil, nil, err
	}
	tmpl.NotBefore = time.Now().Add(-time.Minute) // tolerate a little clock skew
	tmpl.NotAfter = p.caCert.NotAfter
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.caCert, key.Public(), p.caKey)
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
