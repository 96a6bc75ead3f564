package e2e

import (
	"encoding/pem"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

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
	srv := startServer(t, bin, work, freePort(t), dataDir, kubeconfig, filepath.Join(work, "server.log"))
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", srv.proc.Pid()))
	if err != nil {
		t.Fatal(err)
	}

	checkEtcdPrivate(t, srv)

	if code, err := srv.proc.Signal(os.Interrupt, stopTimeout); err != nil || code != 0 {
		t.Errorf("after SIGINT the server should exit 0; got exit %d, %v\n%s", code, err, srv.proc.Describe())
	}
	checkNoSecrets(t, srv, map[string]string{
		"the server's arguments": strings.ReplaceAll(string(cmdline), "\x00", " "),
		"the server's output":    srv.proc.Log(),
		"etcd's log":             readFile(t, filepath.Join(dataDir, "etcd.log")),
	})
}

// checkEtcdPrivate finds the server's listeners in /proc and shows that etcd listens on a
// unix socket in the data dir only, which no other user can connect to.
func checkEtcdPrivate(t *testing.T, s *server) {
	t.Helper()
	tcp, err := listeningAddrs(s.proc.Pid())
	if err != nil {
		t.Fatal(err)
	}
	if want := []netip.AddrPort{netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(s.port))}; !slices.Equal(tcp, want) {
		t.Errorf("the server listens on TCP %v; want only its secure port %v (etcd must have no TCP port)", tcp, want)
	}
	socket := filepath.Join(s.dataDir, "etcd.sock")
	unix, err := listeningUnixSockets(s.proc.Pid())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(unix, []string{socket}) {
		t.Fatalf("the server listens on unix sockets %q; want only etcd's, %s", unix, socket)
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
		t.Fatalf("connecting to etcd's socket as the server's user failed:\n%s", r)
	}
	if os.Geteuid() != 0 {
		t.Logf("not root: cannot connect as another user; the socket's and the data dir's modes were checked")
		return
	}
	nobody := &syscall.Credential{Uid: 65534, Gid: 65534}
	if r := dialUnixAs(t, socket, nobody); r.ExitCode != 3 || !strings.Contains(r.Stdout, "permission denied") {
		t.Errorf("connecting to etcd's socket as the user nobody: want permission denied, got:\n%s", r)
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
