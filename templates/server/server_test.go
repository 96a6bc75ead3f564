package server

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/pflag"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	apimachineryversion "k8s.io/apimachinery/pkg/version"
	"k8s.io/apiserver/pkg/registry/generic"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	openapicommon "k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// emptyAPIs serves no group at all: what this package does on its own.
func emptyAPIs() APIs {
	scheme := runtime.NewScheme()
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	scheme.AddUnversionedTypes(schema.GroupVersion{Version: "v1"},
		&metav1.Status{}, &metav1.APIVersions{}, &metav1.APIGroupList{}, &metav1.APIGroup{}, &metav1.APIResourceList{})
	return APIs{
		Name:               "test",
		Scheme:             scheme,
		Codecs:             serializer.NewCodecFactory(scheme),
		OpenAPIDefinitions: serverOnlyOpenAPIDefinitions,
		Install:            func(*genericapiserver.GenericAPIServer, generic.RESTOptionsGetter) error { return nil },
		Deployment:         Deployment{Namespace: "test-system", Service: "test-apiserver", ServingCertSecret: "test-apiserver-serving-cert"},
	}
}

// serverOnlyOpenAPIDefinitions stands in for generated definitions: it has
// just the types of the server's own routes (/version, discovery), as opaque
// objects. A generated project's definitions include them in full.
func serverOnlyOpenAPIDefinitions(openapicommon.ReferenceCallback) map[string]openapicommon.OpenAPIDefinition {
	defs := map[string]openapicommon.OpenAPIDefinition{}
	for _, name := range []string{
		// Keyed by model name: these types implement OpenAPIModelName.
		"io.k8s.apimachinery.pkg.version.Info",
		"io.k8s.apimachinery.pkg.apis.meta.v1.APIGroupList",
		"io.k8s.apimachinery.pkg.apis.meta.v1.APIGroup",
		"io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList",
		"io.k8s.apimachinery.pkg.apis.meta.v1.APIVersions",
		"io.k8s.apimachinery.pkg.apis.meta.v1.Status",
	} {
		defs[name] = openapicommon.OpenAPIDefinition{Schema: spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}}}}
	}
	return defs
}

// lockedBuffer is written by the server's goroutines while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type running struct {
	cancel context.CancelFunc
	done   chan error
	out    *lockedBuffer
}

// start runs the command in the background; the test stops it.
func start(t *testing.T, args ...string) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := NewCommand(ctx, emptyAPIs())
	cmd.SetArgs(args)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	r := &running{cancel: cancel, done: make(chan error, 1), out: &lockedBuffer{}}
	cmd.SetOut(r.out)
	go func() { r.done <- cmd.Execute() }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-r.done:
		case <-time.After(time.Minute):
			t.Error("server did not stop")
		}
	})
	return r
}

// stop cancels the server's context and returns what the command returned.
func (r *running) stop(t *testing.T) error {
	t.Helper()
	r.cancel()
	select {
	case err := <-r.done:
		r.done <- err // for the cleanup
		return err
	case <-time.After(time.Minute):
		t.Fatal("server did not stop within a minute")
		return nil
	}
}

// waitReady polls /readyz with the kubeconfig's credentials until it answers 200.
func (r *running) waitReady(t *testing.T, kubeconfig string) *http.Client {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	var last string
	for time.Now().Before(deadline) {
		select {
		case err := <-r.done:
			t.Fatalf("server exited before it was ready: %v", err)
		default:
		}
		if _, err := os.Stat(kubeconfig); err == nil {
			client, host := kubeconfigClient(t, kubeconfig)
			code, body := get(t, client, host+"/readyz")
			if code == http.StatusOK {
				return client
			}
			last = body
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("server not ready within a minute; last /readyz: %s", last)
	return nil
}

func kubeconfigClient(t *testing.T, path string) (*http.Client, string) {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return client, cfg.Host
}

func get(t *testing.T, client *http.Client, url string) (int, string) {
	t.Helper()
	resp, err := client.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// testVersion stands for a version set at build time.
const testVersion = "v1.2.3-test"

// setVersion sets the version as -ldflags "-X ...server.version=" would.
func setVersion(t *testing.T, v string) {
	old := version
	version = v
	t.Cleanup(func() { version = old })
}

func TestLocalMode(t *testing.T) {
	setVersion(t, testVersion)
	dir := t.TempDir()
	dataDir, kubeconfig := filepath.Join(dir, "data"), filepath.Join(dir, "kubeconfig")
	args := []string{"--data-dir", dataDir, "--write-kubeconfig", kubeconfig, "--secure-port", "0"}
	// A data dir that exists already, open to everyone, is tightened.
	if err := os.Mkdir(dataDir, 0o755); err != nil {
		t.Fatal(err)
	}

	srv := start(t, args...)
	client := srv.waitReady(t, kubeconfig)
	_, host := kubeconfigClient(t, kubeconfig)
	checkPrivate(t, dataDir)

	for _, path := range []string{"/readyz", "/livez", "/healthz", "/apis", "/version", "/openapi/v2", "/openapi/v3"} {
		if code, body := get(t, client, host+path); code != http.StatusOK {
			t.Errorf("GET %s as admin: %d %s", path, code, body)
		}
	}
	_, body := get(t, client, host+"/apis")
	var groups metav1.APIGroupList
	if err := json.Unmarshal([]byte(body), &groups); err != nil || groups.Kind != "APIGroupList" {
		t.Errorf("GET /apis: want an APIGroupList, got %s (%v)", body, err)
	}

	// The project's version, as -ldflags -X sets it (see setVersion).
	_, body = get(t, client, host+"/version")
	var info apimachineryversion.Info
	if err := json.Unmarshal([]byte(body), &info); err != nil {
		t.Fatal(err)
	}
	if info.GitVersion != testVersion || info.Major != "1" || info.Minor != "2" || info.GoVersion == "" {
		t.Errorf("GET /version: %s; want gitVersion %s, major 1, minor 2 and the Go version", body, testVersion)
	}
	_, body = get(t, client, host+"/openapi/v2")
	var doc struct {
		Info struct{ Title, Version string }
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil || doc.Info.Title != "test" || doc.Info.Version != testVersion {
		t.Errorf("GET /openapi/v2: info %+v (%v); want title test, version %s", doc.Info, err, testVersion)
	}

	if fi, err := os.Stat(kubeconfig); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("kubeconfig mode: %v, %v; want 0600", fi.Mode(), err)
	}
	// Start-up ends with a command to paste; test serves no resource.
	if !strings.Contains(srv.out.String(), "admin kubeconfig: "+kubeconfig+"\nkubectl --kubeconfig "+kubeconfig+" api-resources\n") {
		t.Errorf("output does not name the kubeconfig and a kubectl command: %q", srv.out.String())
	}

	// Anonymous: trusts the server, presents no certificate.
	caPEM, err := os.ReadFile(filepath.Join(dataDir, "pki", "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	anonymous := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	for _, path := range []string{"/apis", "/readyz"} {
		if code, body := get(t, anonymous, host+path); code != http.StatusUnauthorized {
			t.Errorf("GET %s anonymously: %d %s; want 401", path, code, body)
		}
	}

	// A second server on the same data dir fails at once.
	second := start(t, "--data-dir", dataDir, "--write-kubeconfig", filepath.Join(dir, "other"), "--secure-port", "0")
	select {
	case err := <-second.done:
		second.done <- err
		if err == nil || !strings.Contains(err.Error(), "in use by another server") {
			t.Errorf("second server on the same data dir: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Error("second server on the same data dir did not fail")
	}

	oldKubeconfig, err := os.ReadFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.stop(t); err != nil {
		t.Fatalf("stopping: %v", err)
	}

	// Restart on the same port: same CA and admin credentials, so the
	// kubeconfig written before is unchanged and still works.
	port := host[strings.LastIndex(host, ":")+1:]
	args[len(args)-1] = port
	srv = start(t, args...)
	srv.waitReady(t, kubeconfig)
	if newCA, _ := os.ReadFile(filepath.Join(dataDir, "pki", "ca.crt")); !bytes.Equal(newCA, caPEM) {
		t.Error("restart replaced the CA")
	}
	if newKubeconfig, _ := os.ReadFile(kubeconfig); !bytes.Equal(newKubeconfig, oldKubeconfig) {
		t.Errorf("restart changed the kubeconfig:\n%s\nwas:\n%s", newKubeconfig, oldKubeconfig)
	}
	if code, body := get(t, client, host+"/apis"); code != http.StatusOK {
		t.Errorf("GET /apis with the old client after restart: %d %s", code, body)
	}
	if err := srv.stop(t); err != nil {
		t.Fatalf("stopping: %v", err)
	}
}

// checkPrivate asserts that the data dir is the server's alone: the
// directory 0700, etcd's socket and every key 0600.
func checkPrivate(t *testing.T, dataDir string) {
	t.Helper()
	modes := map[string]os.FileMode{dataDir: os.ModeDir | 0o700, filepath.Join(dataDir, "etcd.sock"): os.ModeSocket | 0o600}
	keys, _ := filepath.Glob(filepath.Join(dataDir, "pki", "*.key"))
	if len(keys) != 2 {
		t.Errorf("want the CA's and the admin's key in %s/pki, found %v", dataDir, keys)
	}
	for _, k := range keys {
		modes[k] = 0o600
	}
	for path, want := range modes {
		fi, err := os.Stat(path)
		if err != nil {
			t.Error(err)
		} else if fi.Mode() != want {
			t.Errorf("%s: mode %v, want %v", path, fi.Mode(), want)
		}
	}
}

func TestSocketPath(t *testing.T) {
	t.Chdir(t.TempDir())
	wd, _ := os.Getwd()
	if got, _ := socketPath("data", "etcd.sock"); got != filepath.Join(wd, "data", "etcd.sock") {
		t.Errorf("short data dir: socket %q, want the absolute path", got)
	}
	// Deep below the working directory: only the relative path fits.
	deep := filepath.Join(wd, strings.Repeat("d", 40), strings.Repeat("e", 40))
	if got, err := socketPath(deep, "etcd.sock"); err != nil || got != filepath.Join(strings.Repeat("d", 40), strings.Repeat("e", 40), "etcd.sock") {
		t.Errorf("deep data dir: socket %q, %v; want the path relative to the working directory", got, err)
	}
	long := "/" + strings.Repeat("x", maxSocketPath)
	if _, err := socketPath(long, "etcd.sock"); err == nil || !strings.Contains(err.Error(), "use a shorter --data-dir") {
		t.Errorf("too long a data dir: %v", err)
	}
}

// --profiling=false (RecommendedOptions' flag) removes /debug/pprof; the rest
// of the operator's endpoints stay.
func TestProfilingOff(t *testing.T) {
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	for _, profiling := range []string{"true", "false"} {
		srv := start(t, "--data-dir", filepath.Join(dir, "data"), "--write-kubeconfig", kubeconfig, "--secure-port", "0", "--profiling="+profiling)
		client := srv.waitReady(t, kubeconfig)
		_, host := kubeconfigClient(t, kubeconfig)
		want := map[string]int{"/debug/pprof/": http.StatusOK, "/metrics": http.StatusOK}
		if profiling == "false" {
			want["/debug/pprof/"] = http.StatusNotFound
		}
		for path, code := range want {
			if got, body := get(t, client, host+path); got != code {
				t.Errorf("--profiling=%s: GET %s: %d %.200s; want %d", profiling, path, got, body, code)
			}
		}
		if err := srv.stop(t); err != nil {
			t.Fatal(err)
		}
	}
}

// A busy port is one line that says what to do.
func TestSecurePortInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	dir := t.TempDir()
	srv := start(t, "--data-dir", filepath.Join(dir, "data"), "--write-kubeconfig", filepath.Join(dir, "kubeconfig"), "--secure-port", port)
	select {
	case err := <-srv.done:
		srv.done <- err
		want := "--secure-port " + port + ": 127.0.0.1:" + port + " is in use by another program; pick another port with --secure-port=<port>, or a free one with --secure-port=0"
		if err == nil || err.Error() != want {
			t.Errorf("got %v\nwant %s", err, want)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not fail on a busy port")
	}
}

func TestVersionFlag(t *testing.T) {
	for _, tc := range []struct{ set, want string }{{testVersion, "test " + testVersion + "\n"}, {"", "test " + devVersion + "\n"}} {
		setVersion(t, tc.set)
		cmd := NewCommand(context.Background(), emptyAPIs())
		var out bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetArgs([]string{"--version"})
		err := cmd.Execute()
		if err != nil || out.String() != tc.want {
			t.Errorf("--version with version %q: %q, %v; want %q", tc.set, out.String(), err, tc.want)
		}
		// The flag's value is process-wide (component-base's verflag).
		if err := cmd.Flags().Set("version", "false"); err != nil {
			t.Fatal(err)
		}
	}
}

func TestMode(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		local bool
	}{
		{nil, true},
		{[]string{"--data-dir", "x", "--secure-port", "9443"}, true},
		{[]string{"--etcd-servers", "https://etcd-0:2379,https://etcd-1:2379"}, false},
		{[]string{"--kubeconfig", "k"}, false},
		{[]string{"--authentication-kubeconfig", "k"}, false},
		{[]string{"--authorization-kubeconfig", "k"}, false},
		{[]string{"--cluster"}, false},
		{[]string{"--cluster=false"}, true},
		{[]string{"--datastore-endpoint", "sqlite://x"}, true},
	} {
		o := newOptions(emptyAPIs())
		fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
		for _, f := range o.flags("test").FlagSets {
			fs.AddFlagSet(f)
		}
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		o.complete(fs)
		if o.localMode != tc.local {
			t.Errorf("%q: local mode %v, want %v", tc.args, o.localMode, tc.local)
		}
		ss := o.recommended.SecureServing
		if tc.local && (ss.BindAddress.String() != "127.0.0.1" || (tc.args == nil && ss.BindPort != localSecurePort)) {
			t.Errorf("%q: local mode serves on %s:%d", tc.args, ss.BindAddress, ss.BindPort)
		}
		if !tc.local && (ss.BindAddress.String() != "0.0.0.0" || ss.BindPort != 443) {
			t.Errorf("%q: cluster mode serves on %s:%d, want the upstream defaults", tc.args, ss.BindAddress, ss.BindPort)
		}
	}
}

func TestLocalFlagsInClusterMode(t *testing.T) {
	cmd := NewCommand(context.Background(), emptyAPIs())
	cmd.SetArgs([]string{"--etcd-servers", "https://etcd:2379", "--data-dir", "d"})
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	if err == nil || !strings.Contains(err.Error(), "--data-dir applies to local mode only") {
		t.Errorf("got %v", err)
	}
}

func TestHelp(t *testing.T) {
	cmd := NewCommand(context.Background(), emptyAPIs())
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"--help"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	want := []string{"--data-dir string", "--write-kubeconfig string", "Local mode defaults to 8443"}
	help := strings.Join(strings.Fields(out.String()), " ")
	for _, name := range clusterFlags {
		// The rule names every flag that selects cluster mode.
		if !strings.Contains(strings.Join(strings.Fields(cmd.Long), " "), "--"+name+" ") &&
			!strings.Contains(cmd.Long, "--"+name+",") {
			t.Errorf("the help text does not name --%s", name)
		}
	}
	for _, w := range want {
		if !strings.Contains(help, w) {
			t.Errorf("--help lacks %q:\n%s", w, out.String())
		}
	}
}

// The flags are added per section; none of RecommendedOptions may be lost.
func TestEveryRecommendedFlag(t *testing.T) {
	o := newOptions(emptyAPIs())
	ours := pflag.NewFlagSet("ours", pflag.ContinueOnError)
	for _, fs := range o.flags("test").FlagSets {
		ours.AddFlagSet(fs)
	}
	upstream := pflag.NewFlagSet("upstream", pflag.ContinueOnError)
	newOptions(emptyAPIs()).recommended.AddFlags(upstream)
	upstream.VisitAll(func(f *pflag.Flag) {
		if ours.Lookup(f.Name) == nil {
			t.Errorf("flag --%s of RecommendedOptions is missing", f.Name)
		}
	})
}

// The hub types are registered as v1 and as the internal version; OpenAPI must
// only name v1.
func TestDefinitionNamerSkipsInternalVersion(t *testing.T) {
	scheme := runtime.NewScheme()
	for _, version := range []string{"v1", runtime.APIVersionInternal} {
		scheme.AddKnownTypeWithName(schema.GroupVersionKind{Group: "toys.example.com", Version: version, Kind: "Toy"}, &metav1.Status{})
	}
	_, ext := definitionNamer(scheme).GetDefinitionName("io.k8s.apimachinery.pkg.apis.meta.v1.Status")
	got, _ := json.Marshal(ext["x-kubernetes-group-version-kind"])
	if want := `[{"group":"toys.example.com","kind":"Toy","version":"v1"}]`; string(got) != want {
		t.Errorf("x-kubernetes-group-version-kind = %s, want %s", got, want)
	}
}
