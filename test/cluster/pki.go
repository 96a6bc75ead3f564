package cluster

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// CA is a certificate authority kept in memory and written to
// <dir>/<name>.crt and <name>.key.
type CA struct {
	Cert     *x509.Certificate
	CertPEM  []byte
	CertFile string
	key      crypto.Signer
}

// Pair is a certificate and its key, as PEM and as files.
type Pair struct {
	CertPEM, KeyPEM   []byte
	CertFile, KeyFile string
}

// NewCA creates a CA named commonName and writes it to dir/name.{crt,key}.
func NewCA(dir, name, commonName string) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	ca := &CA{Cert: cert, CertPEM: pemBlock("CERTIFICATE", der), key: key}
	pair, err := writePair(dir, name, ca.CertPEM, key)
	if err != nil {
		return nil, err
	}
	ca.CertFile = pair.CertFile
	return ca, nil
}

// CertOptions says what a certificate is for.
type CertOptions struct {
	CommonName string
	Groups     []string // the subject's organizations: Kubernetes groups of a client
	DNSNames   []string
	IPs        []net.IP
	Server     bool // server auth (otherwise client auth)
}

// Issue signs a new key's certificate and writes it to dir/name.{crt,key}.
func (ca *CA) Issue(dir, name string, o CertOptions) (*Pair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	usage := x509.ExtKeyUsageClientAuth
	if o.Server {
		usage = x509.ExtKeyUsageServerAuth
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: o.CommonName, Organization: o.Groups},
		DNSNames:     o.DNSNames,
		IPAddresses:  o.IPs,
		NotBefore:    now.Add(-time.Minute),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, key.Public(), ca.key)
	if err != nil {
		return nil, err
	}
	return writePair(dir, name, pemBlock("CERTIFICATE", der), key)
}

func writePair(dir, name string, certPEM []byte, key *ecdsa.PrivateKey) (*Pair, error) {
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	p := &Pair{
		CertPEM:  certPEM,
		KeyPEM:   pemBlock("PRIVATE KEY", keyDER),
		CertFile: filepath.Join(dir, name+".crt"),
		KeyFile:  filepath.Join(dir, name+".key"),
	}
	if err := os.WriteFile(p.CertFile, p.CertPEM, 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(p.KeyFile, p.KeyPEM, 0o600); err != nil {
		return nil, err
	}
	return p, nil
}

// writeKeyPair writes a bare key pair (service-account signing keys).
func writeKeyPair(dir, name string) (pub, priv string, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", err
	}
	privDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return "", "", err
	}
	pubDER, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		return "", "", err
	}
	pub, priv = filepath.Join(dir, name+".pub"), filepath.Join(dir, name+".key")
	if err := os.WriteFile(pub, pemBlock("PUBLIC KEY", pubDER), 0o644); err != nil {
		return "", "", err
	}
	if err := os.WriteFile(priv, pemBlock("PRIVATE KEY", privDER), 0o600); err != nil {
		return "", "", err
	}
	return pub, priv, nil
}

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	return n
}
