package server

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation"
	certutil "k8s.io/client-go/util/cert"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/component-base/term"
)

// Defaults of the certs command. The directory is the one the project's
// config/default lists as a component (../certs).
const (
	defaultCertsDir     = "config/certs"
	defaultCertValidity = 365 * 24 * time.Hour
)

// The files the certs command writes into --dir.
const (
	caCertFile        = "ca.crt"
	caKeyFile         = "ca.key"
	servingCertFile   = "tls.crt"
	servingKeyFile    = "tls.key"
	kustomizationFile = "kustomization.yaml"
)

const certsLongHelp = `Writes what a cluster needs to trust this server behind its kube-apiserver,
into --dir (default %[1]s), for "kubectl apply -k config/default":

  ca.crt, ca.key       a CA. It is kept when both files exist, so the CA bundle
                       the APIServices hold stays valid when the command runs again.
  tls.crt, tls.key     a serving certificate signed by that CA, for the Service's
                       names (<service>, <service>.<namespace>,
                       <service>.<namespace>.svc, <service>.<namespace>.svc.cluster.local),
                       issued anew on every run: run it again to renew.
  etcd/                the bundled etcd's own CA (kept, like the other), and
                       server.crt, peer.crt and client.crt with their keys, issued
                       anew: the members' certificates for their names under the
                       headless Service <service>-etcd and the client Service
                       <service>-etcd-client (and localhost, 127.0.0.1, ::1), and the
                       client certificate of the API server and the backup Job.
  kustomization.yaml   a kustomize Component: the kubernetes.io/tls Secret --secret
                       in --namespace, the CA bundle of every APIService, and the
                       Secrets <service>-etcd-server, -peer and -client.

Keys are written with mode 0600; keep --dir out of version control. The
defaults are the names config/generated deploys the server with
(+apigen:deploy in pkg/apis/doc.go). To have cert-manager issue the serving
certificate instead, list ../generated/cert-manager in config/default and skip
this command.`

type certsOptions struct {
	dir, namespace, service, secret string
	validity                        time.Duration
}

// newCertsCommand returns the certs sub-command, with defaults from the
// project's deployment names.
func newCertsCommand(apis APIs) *cobra.Command {
	o := &certsOptions{
		dir:       defaultCertsDir,
		namespace: apis.Deployment.Namespace,
		service:   apis.Deployment.Service,
		secret:    apis.Deployment.ServingCertSecret,
		validity:  defaultCertValidity,
	}
	cmd := &cobra.Command{
		Use:   "certs",
		Short: "Writes a CA, a serving certificate and a kustomize component for deploying to a cluster",
		Long:  fmt.Sprintf(certsLongHelp, defaultCertsDir),
		Args:  cobra.NoArgs,
		// Replaces the root's hook: neither its logging nor its feature gates
		// apply here, and errors print as plain messages.
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return o.run(cmd.OutOrStdout(), apis.Name, cmd.CommandPath())
		},
	}

	var fss cliflag.NamedFlagSets
	fs := fss.FlagSet("certs")
	fs.StringVar(&o.dir, "dir", o.dir, "Directory to write the CA, the serving certificate and kustomization.yaml into.")
	fs.StringVar(&o.namespace, "namespace", o.namespace, "Namespace of the Service and of the Secret.")
	fs.StringVar(&o.service, "service", o.service, "Name of the Service in front of the server; the certificate is for its DNS names.")
	fs.StringVar(&o.secret, "secret", o.secret, "Name of the kubernetes.io/tls Secret the Deployment mounts.")
	fs.DurationVar(&o.validity, "validity", o.validity, "How long the serving certificate is valid (at most as long as the CA, 10 years from its creation).")
	fss.FlagSet("global").BoolP("help", "h", false, "help for "+cmd.Name())
	for _, f := range fss.FlagSets {
		cmd.Flags().AddFlagSet(f)
	}
	cols, _, _ := term.TerminalSize(cmd.OutOrStdout())
	cliflag.SetUsageAndHelpFunc(cmd, fss, cols)
	return cmd
}

func (o *certsOptions) validate() error {
	var errs []error
	for _, c := range []struct {
		flag, value string
		check       func(string) []string
	}{
		{"namespace", o.namespace, validation.IsDNS1123Label},
		{"service", o.service, validation.IsDNS1035Label},
		{"secret", o.secret, validation.IsDNS1123Subdomain},
	} {
		for _, msg := range c.check(c.value) {
			errs = append(errs, fmt.Errorf("--%s %q: %s", c.flag, c.value, msg))
		}
	}
	if o.validity <= 0 {
		errs = append(errs, fmt.Errorf("--validity %s: must be positive", o.validity))
	}
	if o.dir == "" {
		errs = append(errs, errors.New("--dir must not be empty"))
	}
	return utilerrors.NewAggregate(errs)
}

// run loads or creates the CA, issues the serving certificate and writes the
// component, then says what it did and what to run next.
func (o *certsOptions) run(out io.Writer, name, commandPath string) error {
	if err := os.MkdirAll(o.dir, 0o700); err != nil {
		return err
	}
	c := &ca{caFile: filepath.Join(o.dir, caCertFile)}
	created, err := c.loadOrCreateCA(filepath.Join(o.dir, caKeyFile), name+"-serving-ca")
	if err != nil {
		return err
	}

	dnsNames := serviceDNSNames(o.service, o.namespace)
	certPEM, keyPEM, err := c.issue(&x509.Certificate{
		Subject:     pkix.Name{CommonName: dnsNames[2]}, // <service>.<namespace>.svc, what kube-apiserver dials
		DNSNames:    dnsNames,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		NotAfter:    time.Now().Add(o.validity),
	})
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(o.dir, servingKeyFile), keyPEM, 0o600); err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(o.dir, servingCertFile), certPEM, 0o644); err != nil {
		return err
	}
	etcdCreated, etcdSecrets, err := o.writeEtcdCerts(name)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(o.dir, kustomizationFile), certsComponent(commandPath, o.namespace, o.secret, c.caPEM, etcdSecrets), 0o644); err != nil {
		return err
	}

	leaf, err := certutil.ParseCertsPEM(certPEM)
	if err != nil {
		return err
	}
	const day = "2006-01-02"
	if created {
		fmt.Fprintf(out, "wrote %s and %s: a new CA, valid until %s\n", c.caFile, caKeyFile, c.caCert.NotAfter.Format(day))
	} else {
		fmt.Fprintf(out, "kept the CA in %s, valid until %s\n", c.caFile, c.caCert.NotAfter.Format(day))
	}
	fmt.Fprintf(out, "wrote %s and %s: serving certificate for %s, valid until %s\n",
		filepath.Join(o.dir, servingCertFile), servingKeyFile, dnsNames[2], leaf[0].NotAfter.Format(day))
	etcdDir := filepath.Join(o.dir, etcdCertsDir)
	if etcdCreated {
		fmt.Fprintf(out, "wrote %s: a new CA for the bundled etcd\n", filepath.Join(etcdDir, caCertFile))
	} else {
		fmt.Fprintf(out, "kept the etcd CA in %s\n", filepath.Join(etcdDir, caCertFile))
	}
	fmt.Fprintf(out, "wrote %s/{server,peer,client}.{crt,key}: etcd's member, peer and client certificates\n", etcdDir)
	fmt.Fprintf(out, "wrote %s: Secret %s/%s, the caBundle of every APIService and the etcd Secrets\n",
		filepath.Join(o.dir, kustomizationFile), o.namespace, o.secret)
	if filepath.Clean(o.dir) != filepath.Clean(defaultCertsDir) {
		fmt.Fprintf(out, "config/default lists ../certs as a component; point it at %s\n", o.dir)
	}
	fmt.Fprintf(out, "next: kubectl apply -k config/default\n")
	return nil
}

// serviceDNSNames are the names of a Service that clients in the cluster use,
// the kube-apiserver's <service>.<namespace>.svc third.
func serviceDNSNames(service, namespace string) []string {
	return []string{
		service,
		service + "." + namespace,
		service + "." + namespace + ".svc",
		service + "." + namespace + ".svc.cluster.local",
	}
}

// certsComponent is the kustomization.yaml of --dir: a Component, so that
// config/default adds it to the generated manifests with "components:". The
// Secret keeps its name (no hash suffix): the Deployment mounts it by name, and
// cert-manager's Certificate writes the same one; both hold ca.crt, which the
// monitoring component's ServiceMonitor trusts. The patch has no target
// name, so it reaches every APIService the project has.
//
// The header must not be apigen's "Code generated" line: apigen generate
// deletes generated files under config/ that it no longer produces.
func certsComponent(commandPath, namespace, secret string, caPEM []byte, etcdSecrets string) []byte {
	return fmt.Appendf(nil, `# Written by %q from the files beside it; it runs again to renew the serving
# certificate and rewrites this file, so make changes in config/default instead.
apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
secretGenerator:
- name: %s
  namespace: %s
  type: kubernetes.io/tls
  files:
  - %s
  - %s
  - %s
  options:
    disableNameSuffixHash: true
%spatches:
- target:
    group: apiregistration.k8s.io
    kind: APIService
  patch: |-
    - op: add
      path: /spec/caBundle
      value: %s
`, commandPath, secret, namespace, caCertFile, servingCertFile, servingKeyFile, etcdSecrets, base64.StdEncoding.EncodeToString(caPEM))
}
