package server

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// runCerts runs "<server> certs args..." and returns its output.
func runCerts(t *testing.T, apis APIs, args ...string) (string, error) {
	t.Helper()
	cmd := NewCommand(context.Background(), apis)
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	cmd.SetArgs(append([]string{"certs"}, args...))
	err := cmd.Execute()
	return out.String(), err
}

func readFile(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// component is the kustomization.yaml the command writes, decoded strictly.
type component struct {
	APIVersion      string `json:"apiVersion"`
	Kind            string `json:"kind"`
	SecretGenerator []struct {
		Name      string   `json:"name"`
		Namespace string   `json:"namespace"`
		Type      string   `json:"type"`
		Files     []string `json:"files"`
		Options   struct {
			DisableNameSuffixHash bool              `json:"disableNameSuffixHash"`
			Labels                map[string]string `json:"labels,omitempty"`
		} `json:"options"`
	} `json:"secretGenerator"`
	Patches []struct {
		Target struct {
			Group string `json:"group"`
			Kind  string `json:"kind"`
			Name  string `json:"name,omitempty"`
		} `json:"target"`
		Patch string `json:"patch"`
	} `json:"patches"`
}

func decodeComponent(t *testing.T, b []byte) component {
	t.Helper()
	var c component
	if err := yaml.UnmarshalStrict(b, &c); err != nil {
		t.Fatalf("kustomization.yaml: %v\n%s", err, b)
	}
	return c
}

// verifyServing checks that tls.crt chains to ca.crt for every Service name,
// for server authentication, and that tls.key is its key.
func verifyServing(t *testing.T, dir string, names []string) *x509.Certificate {
	t.Helper()
	pair, err := tls.LoadX509KeyPair(filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key"))
	if err != nil {
		t.Fatalf("tls.crt and tls.key are not a pair: %v", err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(readFile(t, dir, "ca.crt")) {
		t.Fatal("ca.crt holds no certificate")
	}
	for _, name := range names {
		if _, err := pair.Leaf.Verify(x509.VerifyOptions{
			DNSName: name, Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		}); err != nil {
			t.Errorf("the serving certificate does not verify for %s: %v", name, err)
		}
	}
	if _, err := pair.Leaf.Verify(x509.VerifyOptions{DNSName: "other.test-system.svc", Roots: roots}); err == nil {
		t.Error("the serving certificate verifies for a name it should not hold")
	}
	return pair.Leaf
}

func TestCerts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "config", "certs")
	out, err := runCerts(t, emptyAPIs(), "--dir", dir)
	if err != nil {
		t.Fatalf("certs: %v\n%s", err, out)
	}
	names := []string{"test-apiserver", "test-apiserver.test-system", "test-apiserver.test-system.svc", "test-apiserver.test-system.svc.cluster.local"}
	leaf := verifyServing(t, dir, names)
	if !slices.Equal(leaf.DNSNames, names) {
		t.Errorf("DNS names %v, want %v", leaf.DNSNames, names)
	}
	if d := time.Until(leaf.NotAfter); d < 364*24*time.Hour || d > 366*24*time.Hour {
		t.Errorf("the serving certificate is valid for %s, want a year by default", d)
	}
	for _, want := range []string{"a new CA", "serving certificate for test-apiserver.test-system.svc", "Secret test-system/test-apiserver-serving-cert", "next: kubectl apply -k config/default"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	// Only the five files, nothing left over from atomic writes; keys private.
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	modes := map[string]os.FileMode{}
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		modes[e.Name()] = fi.Mode().Perm()
	}
	want := map[string]os.FileMode{"ca.crt": 0o644, "ca.key": 0o600, "tls.crt": 0o644, "tls.key": 0o600, "kustomization.yaml": 0o644, "etcd": 0o700}
	if len(modes) != len(want) {
		t.Errorf("files in --dir: %v, want %v", modes, want)
	}
	for name, mode := range want {
		if modes[name] != mode {
			t.Errorf("%s: mode %v, want %v", name, modes[name], mode)
		}
	}

	kust := readFile(t, dir, "kustomization.yaml")
	c := decodeComponent(t, kust)
	if c.APIVersion != "kustomize.config.k8s.io/v1alpha1" || c.Kind != "Component" {
		t.Errorf("kustomization.yaml is %s %s, want a kustomize Component", c.APIVersion, c.Kind)
	}
	if len(c.SecretGenerator) != 4 {
		t.Fatalf("%d secretGenerator entries, want 4 (serving, etcd server, peer, client)", len(c.SecretGenerator))
	}
	sg := c.SecretGenerator[0]
	if sg.Name != "test-apiserver-serving-cert" || sg.Namespace != "test-system" || sg.Type != "kubernetes.io/tls" ||
		!slices.Equal(sg.Files, []string{"ca.crt", "tls.crt", "tls.key"}) || !sg.Options.DisableNameSuffixHash {
		t.Errorf("secretGenerator = %+v", sg)
	}
	if len(c.Patches) != 1 {
		t.Fatalf("%d patches, want 1", len(c.Patches))
	}
	p := c.Patches[0]
	if p.Target.Group != "apiregistration.k8s.io" || p.Target.Kind != "APIService" || p.Target.Name != "" {
		t.Errorf("patch target = %+v, want every APIService", p.Target)
	}
	var ops []struct {
		Op, Path, Value string
	}
	if err := yaml.UnmarshalStrict([]byte(p.Patch), &ops); err != nil {
		t.Fatalf("the patch is not a JSON 6902 patch: %v\n%s", err, p.Patch)
	}
	if len(ops) != 1 || ops[0].Op != "add" || ops[0].Path != "/spec/caBundle" {
		t.Fatalf("patch = %+v, want one add of /spec/caBundle", ops)
	}
	if bundle, err := base64.StdEncoding.DecodeString(ops[0].Value); err != nil || !bytes.Equal(bundle, readFile(t, dir, "ca.crt")) {
		t.Errorf("the caBundle is not ca.crt (%v)", err)
	}
	// apigen generate deletes files under config/ with its header that it no longer produces.
	if bytes.Contains(kust, []byte("Code generated")) {
		t.Errorf("kustomization.yaml has a generated-file header, so apigen generate would delete it:\n%s", kust)
	}

	// A second run keeps the CA, so the caBundle already applied stays valid, and
	// issues a new serving certificate from it.
	caCert, caKey, oldCert := readFile(t, dir, "ca.crt"), readFile(t, dir, "ca.key"), readFile(t, dir, "tls.crt")
	out, err = runCerts(t, emptyAPIs(), "--dir", dir, "--validity", "48h")
	if err != nil {
		t.Fatalf("second run: %v\n%s", err, out)
	}
	if !strings.Contains(out, "kept the CA") {
		t.Errorf("second run output does not say the CA was kept:\n%s", out)
	}
	if !bytes.Equal(readFile(t, dir, "ca.crt"), caCert) || !bytes.Equal(readFile(t, dir, "ca.key"), caKey) {
		t.Error("the second run replaced the CA")
	}
	if bytes.Equal(readFile(t, dir, "tls.crt"), oldCert) {
		t.Error("the second run did not issue a new serving certificate")
	}
	if !bytes.Equal(readFile(t, dir, "kustomization.yaml"), kust) {
		t.Error("the second run changed kustomization.yaml although the CA is the same")
	}
	leaf = verifyServing(t, dir, names)
	if d := time.Until(leaf.NotAfter); d < 47*time.Hour || d > 49*time.Hour {
		t.Errorf("--validity 48h gave a certificate valid for %s", d)
	}
}

// TestCertsEtcd checks the bundled etcd's certificates: their own CA, kept on a second run;
// members' certificates that verify for every name a member is dialled by (its name under the
// headless Service, the client Service, 127.0.0.1) as servers and that work as client
// certificates for peers; the API server's client certificate; and their Secrets, labelled for
// the external-etcd component.
func TestCertsEtcd(t *testing.T) {
	dir := t.TempDir()
	if out, err := runCerts(t, emptyAPIs(), "--dir", dir); err != nil {
		t.Fatalf("certs: %v\n%s", err, out)
	}
	etcdDir := filepath.Join(dir, "etcd")
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(readFile(t, etcdDir, "ca.crt")) {
		t.Fatal("etcd/ca.crt holds no certificate")
	}
	if bytes.Equal(readFile(t, etcdDir, "ca.crt"), readFile(t, dir, "ca.crt")) {
		t.Error("etcd's CA is the serving CA: a serving certificate's CA must not admit clients to etcd")
	}
	verify := func(file string, usage x509.ExtKeyUsage, name string) error {
		pair, err := tls.LoadX509KeyPair(filepath.Join(etcdDir, file+".crt"), filepath.Join(etcdDir, file+".key"))
		if err != nil {
			t.Fatalf("%s.crt and %s.key are not a pair: %v", file, file, err)
		}
		_, err = pair.Leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: name, KeyUsages: []x509.ExtKeyUsage{usage}})
		return err
	}
	for _, file := range []string{"server", "peer"} {
		for _, name := range []string{
			"test-apiserver-etcd-0.test-apiserver-etcd.test-system.svc", "test-apiserver-etcd-2.test-apiserver-etcd.test-system.svc",
			"test-apiserver-etcd-7.test-apiserver-etcd.test-system.svc.cluster.local",
			"test-apiserver-etcd-client.test-system.svc", "localhost", "127.0.0.1",
		} {
			if err := verify(file, x509.ExtKeyUsageServerAuth, name); err != nil {
				t.Errorf("etcd/%s.crt as a server for %s: %v", file, name, err)
			}
		}
		if err := verify(file, x509.ExtKeyUsageServerAuth, "test-apiserver.test-system.svc"); err == nil {
			t.Errorf("etcd/%s.crt verifies for the API server's name", file)
		}
		if err := verify(file, x509.ExtKeyUsageClientAuth, ""); err != nil {
			t.Errorf("etcd/%s.crt as a client certificate: %v", file, err)
		}
	}
	if err := verify("client", x509.ExtKeyUsageClientAuth, ""); err != nil {
		t.Errorf("etcd/client.crt as a client certificate: %v", err)
	}
	if err := verify("client", x509.ExtKeyUsageServerAuth, ""); err == nil {
		t.Error("etcd/client.crt is also a server certificate")
	}

	c := decodeComponent(t, readFile(t, dir, "kustomization.yaml"))
	var secrets []string
	for _, sg := range c.SecretGenerator[1:] {
		secrets = append(secrets, sg.Name)
		if sg.Namespace != "test-system" || sg.Type != "kubernetes.io/tls" || sg.Options.Labels["app.kubernetes.io/instance"] != "test-apiserver-etcd" {
			t.Errorf("secretGenerator %+v", sg)
		}
		for _, f := range sg.Files {
			_, file, _ := strings.Cut(f, "=")
			if _, err := os.Stat(filepath.Join(dir, file)); err != nil {
				t.Errorf("Secret %s: %v", sg.Name, err)
			}
		}
	}
	if want := []string{"test-apiserver-etcd-server", "test-apiserver-etcd-peer", "test-apiserver-etcd-client"}; !slices.Equal(secrets, want) {
		t.Errorf("etcd Secrets %v, want %v", secrets, want)
	}

	caPEM, peer := readFile(t, etcdDir, "ca.crt"), readFile(t, etcdDir, "peer.crt")
	out, err := runCerts(t, emptyAPIs(), "--dir", dir)
	if err != nil {
		t.Fatalf("second run: %v\n%s", err, out)
	}
	if !bytes.Equal(readFile(t, etcdDir, "ca.crt"), caPEM) || !strings.Contains(out, "kept the etcd CA") {
		t.Errorf("the second run replaced etcd's CA:\n%s", out)
	}
	if bytes.Equal(readFile(t, etcdDir, "peer.crt"), peer) {
		t.Error("the second run did not issue new etcd certificates")
	}
}

func TestCertsFlags(t *testing.T) {
	dir := t.TempDir()
	out, err := runCerts(t, emptyAPIs(), "--dir", dir, "--namespace", "apis", "--service", "toys", "--secret", "toys-tls")
	if err != nil {
		t.Fatalf("certs: %v\n%s", err, out)
	}
	verifyServing(t, dir, []string{"toys", "toys.apis", "toys.apis.svc", "toys.apis.svc.cluster.local"})
	sg := decodeComponent(t, readFile(t, dir, "kustomization.yaml")).SecretGenerator[0]
	if sg.Name != "toys-tls" || sg.Namespace != "apis" {
		t.Errorf("Secret %s/%s, want apis/toys-tls", sg.Namespace, sg.Name)
	}
	if !strings.Contains(out, "point it at "+dir) {
		t.Errorf("output does not say config/default must point at --dir:\n%s", out)
	}
}

func TestCertsRefuses(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--namespace", "Not_A_Label"}, "--namespace"},
		{[]string{"--service", "2fast"}, "--service"},
		{[]string{"--secret", "a/b"}, "--secret"},
		{[]string{"--validity", "0s"}, "--validity"},
	} {
		dir := t.TempDir()
		if _, err := runCerts(t, emptyAPIs(), append([]string{"--dir", dir}, tc.args...)...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want an error about %s", tc.args, err, tc.want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%q: refused, yet wrote %d files", tc.args, len(entries))
		}
	}

	// A CA certificate without its key is not replaced: whoever trusts it would
	// stop trusting the server.
	dir := t.TempDir()
	if _, err := runCerts(t, emptyAPIs(), "--dir", dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "ca.key")); err != nil {
		t.Fatal(err)
	}
	caCert := readFile(t, dir, "ca.crt")
	if _, err := runCerts(t, emptyAPIs(), "--dir", dir); err == nil || !strings.Contains(err.Error(), "ca.crt exists but its key does not") {
		t.Errorf("ca.crt without ca.key: got %v", err)
	}
	if !bytes.Equal(readFile(t, dir, "ca.crt"), caCert) {
		t.Error("ca.crt was replaced")
	}

	// A key that is not the CA's is refused too.
	other := t.TempDir()
	if _, err := runCerts(t, emptyAPIs(), "--dir", other); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ca.key"), readFile(t, other, "ca.key"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := runCerts(t, emptyAPIs(), "--dir", dir); err == nil || !strings.Contains(err.Error(), "does not belong to the CA certificate") {
		t.Errorf("a foreign ca.key: got %v", err)
	}
}

func TestCertsHelp(t *testing.T) {
	out, err := runCerts(t, emptyAPIs(), "--help")
	if err != nil {
		t.Fatal(err)
	}
	help := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{
		`--dir string Directory to write the CA, the serving certificate and kustomization.yaml into. (default "config/certs")`,
		`--namespace string Namespace of the Service and of the Secret. (default "test-system")`,
		`(default "test-apiserver")`, `(default "test-apiserver-serving-cert")`, `(default 8760h0m0s)`,
		"kubectl apply -k config/default",
	} {
		if !strings.Contains(help, want) {
			t.Errorf("certs --help lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(help, "--etcd-servers") {
		t.Errorf("certs --help shows the server's flags:\n%s", out)
	}
}

func TestDeploymentValidated(t *testing.T) {
	apis := emptyAPIs()
	apis.Deployment.Service = "2fast"
	apis.Deployment.ServingCertSecret = ""
	errs := apis.validate()
	var msgs []string
	for _, err := range errs {
		msgs = append(msgs, err.Error())
	}
	got := strings.Join(msgs, "\n")
	for _, want := range []string{`Deployment.Service "2fast"`, `Deployment.ServingCertSecret ""`} {
		if !strings.Contains(got, want) {
			t.Errorf("validate() = %q, want an error about %s", got, want)
		}
	}
	if errs := emptyAPIs().validate(); len(errs) != 0 {
		t.Errorf("valid APIs: %v", errs)
	}
	// A server built by hand for a test need not name a deployment; certs then
	// wants its flags.
	apis = emptyAPIs()
	apis.Deployment = Deployment{}
	if errs := apis.validate(); len(errs) != 0 {
		t.Errorf("APIs without a Deployment: %v", errs)
	}
	if _, err := runCerts(t, apis, "--dir", t.TempDir()); err == nil || !strings.Contains(err.Error(), `--namespace ""`) {
		t.Errorf("certs without names: got %v, want an error about --namespace", err)
	}
}
