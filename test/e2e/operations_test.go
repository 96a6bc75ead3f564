package e2e

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Operating the built examples/wardle server in local mode on a shared machine: what it
// starts is reachable by nobody else, and it prints no secret.

// TestLocalOperations starts one wardle server and checks it as an operator would.
func TestLocalOperations(t *testing.T) {
	bin := loadServerBin(t)
	// Open to every user, so that only what the server itself protects keeps them out.
	work, err := os.MkdirTemp("", "apigen-ops-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(work) })
	if err := os.Chmod(work, 0o755); err != nil {
		t.Fatal(err)
	}
	dataDir, kubeconfig := filepath.Join(work, "data"), filepath.Join(work, "kubeconfig")
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	auditLog := filepath.Join(work, "audit.log")
	// -v=3 logs every request: more to search for secrets, and the level docs/guides/operating.md documents.
	srv := startServer(t, bin, work, freePort(t), dataDir, kubeconfig, filepath.Join(work, "server.log"),
		"--audit-policy-file="+filepath.Join(root, "examples", "wardle", "config", "audit", "policy.yaml"),
		"--audit-log-path="+auditLog, "-v=3")
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", srv.proc.Pid()))
	if err != nil {
		t.Fatal(err)
	}

	checkStoragePrivate(t, srv, "etcd.sock")
	checkStartupOutput(t, srv)

	k := &kubectl{bin: tools(t).kubectl, kubeconfig: kubeconfig, cacheDir: filepath.Join(work, "kube-cache")}
	flunder := "apiVersion: " + wardleGroup + "/" + loadVersion + "\nkind: Flunder\nmetadata:\n  name: audited\n  namespace: default\n"
	k.okStdin(t, flunder, "create", "-f", "-")
	k.ok(t, "get", "flunders", "-n", "default")
	if log := srv.proc.Log(); !regexp.MustCompile(`"HTTP" verb="POST" URI="/apis/` + wardleGroup + `/` + loadVersion + `/namespaces/default/flunders[?"]`).MatchString(log) {
		t.Errorf("-v=3: the server's log has no HTTP line for the create:\n%s", log)
	}

	checkVersion(t, srv, k)
	checkMetrics(t, srv)
	checkProfiling(t, srv, k, work)
	checkAudit(t, auditLog)
	checkSlowRequestTrace(t, srv, k)

	// An open watch (kubectl get -w in another terminal) does not hold the stop: the server
	// ends it, and stops within its watch grace period rather than after the HTTP server's
	// 60 s shutdown timeout, which would log "Failed to shutdown server".
	watch := startProcess(t, cmdOpts{Dir: work}, filepath.Join(work, "watch.log"), k.bin, k.args("get", "flunders", "-n", "default", "-w")...)
	if err := poll(eventTimeout, func() error {
		if !strings.Contains(watch.Log(), "audited") {
			return fmt.Errorf("kubectl get -w printed %q", watch.Log())
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if code, err := srv.proc.Signal(os.Interrupt, stopTimeout); err != nil || code != 0 {
		t.Errorf("after SIGINT the server should exit 0; got exit %d, %v\n%s", code, err, srv.proc.Describe())
	}
	select {
	case <-watch.Done():
	case <-time.After(eventTimeout):
		t.Errorf("kubectl get -w still runs after the server stopped:\n%s", watch.Describe())
	}
	if strings.Contains(srv.proc.Log(), "Failed to shutdown server") {
		t.Errorf("an open watch held the server's stop until the shutdown timeout:\n%s", srv.proc.Describe())
	}
	// A clean stop is quiet: etcd logs closing its listeners as errors unless told not to.
	for _, line := range strings.Split(readFile(t, filepath.Join(dataDir, "etcd.log")), "\n") {
		if strings.Contains(line, `"level":"error"`) {
			t.Errorf("etcd.log has an error after a clean stop: %s", line)
		}
	}
	checkNoSecrets(t, srv, map[string]string{
		"the server's arguments": strings.ReplaceAll(string(cmdline), "\x00", " "),
		"the server's output":    srv.proc.Log(),
		"etcd's log":             readFile(t, filepath.Join(dataDir, "etcd.log")),
	})
}

// checkStoragePrivate finds the server's listeners in /proc and shows that its storage (the
// embedded etcd, or kine) listens on a unix socket in the data dir only, named name, which no
// other user can connect to.
func checkStoragePrivate(t *testing.T, s *server, name string) {
	t.Helper()
	tcp, err := listeningAddrs(s.proc.Pid())
	if err != nil {
		t.Fatal(err)
	}
	if want := []netip.AddrPort{netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(s.port))}; !slices.Equal(tcp, want) {
		t.Errorf("the server listens on TCP %v; want only its secure port %v (etcd must have no TCP port)", tcp, want)
	}
	socket := filepath.Join(s.dataDir, name)
	unix, err := listeningUnixSockets(s.proc.Pid())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(unix, []string{socket}) {
		t.Fatalf("the server listens on unix sockets %q; want only its storage's, %s", unix, socket)
	}

	modes := map[string]os.FileMode{s.dataDir: os.ModeDir | 0o700, socket: os.ModeSocket | 0o600}
	keys, _ := filepath.Glob(filepath.Join(s.dataDir, "pki", "*.key"))
	if len(keys) == 0 {
		t.Errorf("no key in %s/pki", s.dataDir)
	}
	for _, k := range append(keys, s.kubeconfig) {
		modes[k] = 0o600
	}
	for path, want := range modes {
		if fi, err := os.Stat(path); err != nil || fi.Mode() != want {
			t.Errorf("%s: mode %v (%v), want %v", path, fi.Mode(), err, want)
		}
	}

	// The owner gets through (so the check below can tell a refusal from a dead socket);
	// anyone else is refused. root passes every permission check, so only root can show
	// the second part, as the user nobody.
	if r := dialUnixAs(t, socket, nil); r.ExitCode != 0 {
		t.Fatalf("connecting to the storage's socket as the server's user failed:\n%s", r)
	}
	if os.Geteuid() != 0 {
		t.Logf("not root: cannot connect as another user; the socket's and the data dir's modes were checked")
		return
	}
	nobody := &syscall.Credential{Uid: 65534, Gid: 65534}
	if r := dialUnixAs(t, socket, nobody); r.ExitCode != 3 || !strings.Contains(r.Stdout, "permission denied") {
		t.Errorf("connecting to the storage's socket as the user nobody: want permission denied, got:\n%s", r)
	}
}

// dialUnixEnv makes the test binary connect to the unix socket it names and exit (see
// TestMain), so that it can do that as another user.
const dialUnixEnv = "APIGEN_E2E_DIAL_UNIX"

// dialUnix connects to the unix socket at path: exit code 0 when it could, 3 (and why)
// when it could not.
func dialUnix(path string) int {
	c, err := net.Dial("unix", path)
	if err != nil {
		fmt.Println(err)
		return 3
	}
	c.Close()
	return 0
}

// dialUnixAs runs dialUnix in a child test binary as cred's user (nil: this process's).
// The binary is linked into a directory that user can reach.
func dialUnixAs(t *testing.T, path string, cred *syscall.Credential) *cmdResult {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "apigen-dial-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "dial")
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(self, bin); err != nil {
		data, err := os.ReadFile(self)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, bin, string(data))
	}
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), dialUnixEnv+"="+path)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	out, err := cmd.Output()
	r := &cmdResult{Args: []string{bin}, Dir: dir, Stdout: string(out), Err: err}
	if cmd.ProcessState != nil {
		r.ExitCode = cmd.ProcessState.ExitCode()
	} else {
		r.ExitCode = -1
	}
	return r
}

// checkNoSecrets asserts that no private key, whole or in part, appears in what an
// operator or another local user can read (process arguments are public on Linux).
func checkNoSecrets(t *testing.T, s *server, sources map[string]string) {
	t.Helper()
	secrets := map[string]string{}
	keys, _ := filepath.Glob(filepath.Join(s.dataDir, "pki", "*.key"))
	for _, k := range keys {
		secrets[k] = readFile(t, k)
	}
	cfg, err := clientcmd.LoadFromFile(s.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for name, auth := range cfg.AuthInfos {
		secrets["the kubeconfig's key of "+name] = string(auth.ClientKeyData)
	}
	for what, text := range sources {
		if strings.Contains(text, "PRIVATE KEY") {
			t.Errorf("%s holds a PEM private key", what)
		}
		for name, secret := range secrets {
			block, _ := pem.Decode([]byte(secret))
			if block == nil {
				t.Fatalf("%s is not PEM", name)
			}
			// Each line of the key's base64, and its raw bytes.
			for _, line := range strings.Split(secret, "\n") {
				if len(line) >= 16 && !strings.HasPrefix(line, "-----") && strings.Contains(text, line) {
					t.Errorf("%s holds a part of %s: %q", what, name, line)
				}
			}
			if strings.Contains(text, string(block.Bytes)) {
				t.Errorf("%s holds %s", what, name)
			}
		}
	}
}

// checkVersion: /version and the OpenAPI documents carry the version the server was built
// with (-ldflags -X .../pkg/cmd/server.version), not the Kubernetes libraries'.
func checkVersion(t *testing.T, s *server, k *kubectl) {
	t.Helper()
	var v struct {
		ServerVersion struct{ GitVersion, Major, Minor string }
	}
	// kubectl warns on stderr that 0.1 is far from its own 1.x; the JSON is on stdout.
	r := k.run("", "version", "-o", "json")
	if err := json.Unmarshal([]byte(r.Stdout), &v); err != nil {
		t.Fatalf("kubectl version -o json: %v\n%s", err, r)
	}
	if sv := v.ServerVersion; sv.GitVersion != wardleVersion || sv.Major != "0" || sv.Minor != "1" {
		t.Errorf("kubectl version: server %+v; want %s (major 0, minor 1)", sv, wardleVersion)
	}
	cfg := restConfig(t, s.kubeconfig)
	for _, path := range []string{"/openapi/v2", "/openapi/v3/apis/" + wardleGroup + "/" + loadVersion} {
		code, body, err := restGet(cfg, path)
		var doc struct {
			Info struct{ Title, Version string }
		}
		if err == nil && code == http.StatusOK {
			err = json.Unmarshal([]byte(body), &doc)
		}
		if err != nil || doc.Info.Title != "wardle" || doc.Info.Version != wardleVersion {
			t.Errorf("GET %s: %d, info %+v (%v); want title wardle, version %s", path, code, doc.Info, err, wardleVersion)
		}
	}
}

// checkMetrics: /metrics counts the kubectl calls by our group, version and resource, and
// answers only an authenticated client.
func checkMetrics(t *testing.T, s *server) {
	t.Helper()
	code, body, err := restGet(restConfig(t, s.kubeconfig), "/metrics")
	if err != nil || code != http.StatusOK {
		t.Fatalf("GET /metrics as admin: %d %v", code, err)
	}
	want := regexp.MustCompile(`(?m)^apiserver_request_total\{[^}]*\}`)
	var found []string
	for _, series := range want.FindAllString(body, -1) {
		if strings.Contains(series, `group="`+wardleGroup+`"`) && strings.Contains(series, `resource="flunders"`) &&
			strings.Contains(series, `version="`+loadVersion+`"`) && strings.Contains(series, `code="201"`) && strings.Contains(series, `verb="POST"`) {
			found = append(found, series)
		}
	}
	if len(found) == 0 {
		t.Errorf("/metrics has no apiserver_request_total for the created flunder (group %s, version %s, resource flunders, POST, 201)", wardleGroup, loadVersion)
	}
	for _, name := range []string{"apiserver_request_duration_seconds_bucket", "apiserver_current_inflight_requests",
		"apiserver_storage_objects", "etcd_request_duration_seconds_bucket", "process_resident_memory_bytes", "go_goroutines"} {
		if !regexp.MustCompile(`(?m)^` + name + `[{ ]`).MatchString(body) {
			t.Errorf("/metrics has no %s", name)
		}
	}
	checkAnonymousRefused(t, s, "/metrics")
}

// checkAnonymousRefused: a client without a certificate gets 401 for path.
func checkAnonymousRefused(t *testing.T, s *server, path string) {
	t.Helper()
	if code, body, err := anonymousGet(fmt.Sprintf("https://127.0.0.1:%d%s", s.port, path)); code != http.StatusUnauthorized {
		t.Errorf("GET %s without credentials: %d %v %s; want 401", path, code, err, body)
	}
}

// checkProfiling: /debug/pprof needs authentication, and docs/guides/operating.md's commands (kubectl get
// --raw with the admin kubeconfig, then go tool pprof on the file) read a heap profile.
func checkProfiling(t *testing.T, s *server, k *kubectl, work string) {
	t.Helper()
	if code, _, err := restGet(restConfig(t, s.kubeconfig), "/debug/pprof/"); err != nil || code != http.StatusOK {
		t.Errorf("GET /debug/pprof/ as admin: %d %v", code, err)
	}
	checkAnonymousRefused(t, s, "/debug/pprof/")
	heap := writeFile(t, filepath.Join(work, "heap.pb.gz"), k.ok(t, "get", "--raw", "/debug/pprof/heap"))
	r := runCmd(cmdOpts{Dir: work}, "go", "tool", "pprof", "-top", heap)
	if r.ExitCode != 0 || !strings.Contains(r.Stdout, "flat%") {
		t.Errorf("go tool pprof on the heap profile kubectl fetched did not print it:\n%s", r)
	}
}

// checkAudit: with the scaffolded example policy, the create above is an audit event with
// the user, the verb, the resource and the response code.
func checkAudit(t *testing.T, path string) {
	t.Helper()
	var events []string
	err := poll(eventTimeout, func() error {
		events = nil
		for _, line := range strings.Split(readFile(t, path), "\n") {
			var e struct {
				Level, Verb, Stage string
				User               struct{ Username string }
				ObjectRef          struct{ APIGroup, APIVersion, Resource, Namespace, Name string }
				ResponseStatus     struct{ Code int }
				RequestObject      json.RawMessage
			}
			if json.Unmarshal([]byte(line), &e) != nil || e.ObjectRef.Resource != "flunders" {
				continue
			}
			events = append(events, line)
			if e.Verb == "create" && e.Stage == "ResponseComplete" && e.Level == "Request" && e.User.Username == "apigen-admin" &&
				e.ObjectRef.APIGroup == wardleGroup && e.ObjectRef.APIVersion == loadVersion && e.ObjectRef.Namespace == "default" &&
				e.ObjectRef.Name == "audited" && e.ResponseStatus.Code == http.StatusCreated && len(e.RequestObject) > 0 {
				return nil
			}
		}
		return fmt.Errorf("no create event of flunder default/audited by apigen-admin with code 201 and the request; flunder events: %q", events)
	})
	if err != nil {
		t.Error(err)
	}
}

// checkStartupOutput: local mode does not warn about the kubeconfigs it does not need, and
// ends its start-up with a kubectl command that works as printed.
func checkStartupOutput(t *testing.T, s *server) {
	t.Helper()
	log := s.proc.Log()
	if strings.Contains(log, "No authorization-kubeconfig provided") {
		t.Errorf("local mode warns about the authorization kubeconfig it does not use:\n%s", log)
	}
	prefix := "kubectl --kubeconfig " + s.kubeconfig + " get "
	i := strings.Index(log, prefix)
	if i < 0 {
		t.Fatalf("the start-up output has no %q line:\n%s", prefix, log)
	}
	line, _, _ := strings.Cut(log[i:], "\n")
	args := strings.Fields(line)[1:]
	if r := runCmd(cmdOpts{Dir: s.dir}, tools(t).kubectl, args...); r.ExitCode != 0 {
		t.Errorf("the printed %q failed:\n%s", line, r)
	}
}

// checkSlowRequestTrace: at -v=2 and above a request slower than 500 ms logs its Trace. A
// list of about 16 MB, read by a client that waits before reading, keeps the server writing
// well past that.
func checkSlowRequestTrace(t *testing.T, s *server, k *kubectl) {
	t.Helper()
	random := make([]byte, 768<<10)
	for i := range 16 {
		if _, err := rand.Read(random); err != nil {
			t.Fatal(err)
		}
		flunder := fmt.Sprintf("apiVersion: %s/%s\nkind: Flunder\nmetadata:\n  name: big-%d\n  namespace: traced\nspec:\n  reference: %s\n",
			wardleGroup, loadVersion, i, base64.RawURLEncoding.EncodeToString(random))
		k.okStdin(t, flunder, "create", "-f", "-")
	}
	cfg := restConfig(t, s.kubeconfig)
	tlsConfig, err := rest.TLSConfigFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Timeout: time.Minute, Transport: &http.Transport{TLSClientConfig: tlsConfig, DisableCompression: true}}
	resp, err := hc.Get(fmt.Sprintf("%s/apis/%s/%s/namespaces/traced/flunders", cfg.Host, wardleGroup, loadVersion))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the slow list: %d, %d bytes, %v", resp.StatusCode, n, err)
	}
	trace := regexp.MustCompile(`Trace\[\d+\]: "List" .*url:/apis/` + wardleGroup + `/` + loadVersion + `/namespaces/traced/flunders`)
	if err := poll(eventTimeout, func() error {
		if !trace.MatchString(s.proc.Log()) {
			return fmt.Errorf("no Trace line for the list of %d bytes", n)
		}
		return nil
	}); err != nil {
		t.Errorf("%v:\n%s", err, s.proc.Log())
	}
}
