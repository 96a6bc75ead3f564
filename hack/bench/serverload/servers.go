package main

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/apigen-dev/apigen/test/cluster"
)

// buildTool runs hack/tools/build.sh TOOL (a no-op when bin/TOOL is current).
func buildTool(root, tool string) (string, error) {
	cmd := exec.Command(filepath.Join(root, "hack", "tools", "build.sh"), tool)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("hack/tools/build.sh %s: %v\n%s", tool, err, out)
	}
	return filepath.Join(root, "bin", tool), nil
}

// goEnv is the environment of the go commands that build the projects: each
// is its own module, built with the Go toolchain at hand.
func goEnv() []string { return append(os.Environ(), "GOWORK=off", "GOTOOLCHAIN=local") }

// buildWardle builds the generated server of the project at src from a copy
// in dir.
func buildWardle(src, dir string) (string, error) {
	proj := filepath.Join(dir, "wardle")
	if err := copyProject(src, proj); err != nil {
		return "", err
	}
	return buildServer(proj, dir, "wardle-apiserver")
}

// buildServer builds ./cmd/apiserver of the apigen project proj into
// dir/name, the way hack/tools/build.sh builds sample-apiserver: -trimpath and
// the release version stamped from the project's k8s.io/component-base.
func buildServer(proj, dir, name string) (string, error) {
	src := proj
	env := goEnv()
	ldflags := ""
	list := exec.Command("go", "list", "-mod=readonly", "-m", "-f", "{{.Version}}", "k8s.io/component-base")
	list.Dir, list.Env = proj, env
	if out, err := list.Output(); err == nil {
		if kv := strings.TrimSpace(string(out)); strings.HasPrefix(kv, "v0.") {
			kv = "v1." + strings.TrimPrefix(kv, "v0.")
			minor, _, _ := strings.Cut(strings.TrimPrefix(kv, "v1."), ".")
			for _, p := range []string{"k8s.io/component-base/version", "k8s.io/client-go/pkg/version"} {
				ldflags += fmt.Sprintf(" -X %s.gitVersion=%s -X %s.gitMajor=1 -X %s.gitMinor=%s", p, kv, p, p, minor)
			}
		}
	}
	out := filepath.Join(dir, name)
	build := func(extra ...string) ([]byte, error) {
		args := append([]string{"build"}, extra...)
		args = append(args, "-trimpath", "-ldflags", ldflags, "-o", out, "./cmd/apiserver")
		cmd := exec.Command("go", args...)
		cmd.Dir, cmd.Env = proj, env
		return cmd.CombinedOutput()
	}
	if msg, err := build("-mod=readonly"); err != nil {
		// A project whose go.sum lags its generated code still builds with
		// -mod=mod; say so, since a user's plain go build would fail.
		fmt.Fprintf(os.Stderr, "serverload: go build -mod=readonly of %s failed, retrying with -mod=mod:\n%s", src, msg)
		if msg, err := build("-mod=mod"); err != nil {
			return "", fmt.Errorf("go build ./cmd/apiserver in a copy of %s: %v\n%s", src, err, msg)
		}
	}
	return out, nil
}

// copyProject copies an apigen project without its build output and local
// state.
func copyProject(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() && (rel == "bin" || rel == ".apigen" || rel == "apiserver.local.config") {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// server is one of the two competitors.
type server struct {
	Name string
	Bin  string
	// Kind is what the workload drives (nil: flunderKind).
	Kind *kind
	// launch, when set, starts the server instead of cluster mode on the
	// shared etcd (the -datastores comparison).
	launch func(ctx context.Context, logName string) (*running, error)
	// extraArgs follow the cluster-mode flags.
	extraArgs []string
	// bind is the address it listens on (default 127.0.0.1).
	bind string
	// storage are its storage flags instead of the shared etcd's.
	storage []string
}

// running is a server process in cluster mode.
type running struct {
	*target
	proc    *cluster.Process
	startup time.Duration
	// also are the other replicas of a side of several (-replicas), which
	// stop with it.
	also []*running
	// unroute, when set, takes the side out of kube-apiserver's routing
	// before it stops, as a terminating Pod leaves its Service's endpoints.
	unroute func()
	// port is the one it listens on.
	port int
}

// clusterArgs are the flags every server gets, identical but for the port: the
// shared etcd, a kubeconfig of kube-apiserver for the core API, delegated
// authentication and authorization (kube-apiserver's admin in the
// sample-apiserver comparison, the generated ServiceAccount's token in the
// CRD comparison), and the same serving certificate.
func (b *bench) clusterArgs(port int, kubeconfig string) []string {
	return append(b.serverArgs("127.0.0.1", port, kubeconfig), b.etcd.Flags()...)
}

// serverArgs are clusterArgs but the storage's, listening on bind.
func (b *bench) serverArgs(bind string, port int, kubeconfig string) []string {
	return []string{
		"--bind-address=" + bind, "--secure-port=" + strconv.Itoa(port),
		"--tls-cert-file=" + b.serving.CertFile, "--tls-private-key-file=" + b.serving.KeyFile,
		"--kubeconfig=" + kubeconfig,
		"--authentication-kubeconfig=" + kubeconfig,
		"--authorization-kubeconfig=" + kubeconfig,
	}
}

// start runs s in cluster mode (or as s.launch does) and waits for /readyz, timing it from exec.
func (b *bench) start(ctx context.Context, s server, logName string) (*running, error) {
	if s.launch != nil {
		return s.launch(ctx, logName)
	}
	port, err := cluster.FreePort()
	if err != nil {
		return nil, err
	}
	bind, storage := cmp.Or(s.bind, "127.0.0.1"), s.storage
	if storage == nil {
		storage = b.etcd.Flags()
	}
	url := "https://" + net.JoinHostPort(bind, strconv.Itoa(port))
	args := append(append(b.serverArgs(bind, port, b.kas.AdminKubeconfig), storage...), s.extraArgs...)
	begin := time.Now()
	p, err := cluster.Start(filepath.Join(b.dir, logName+".log"), s.Bin, args...)
	if err != nil {
		return nil, err
	}
	k := s.Kind
	if k == nil {
		k = flunderKind
	}
	t, err := directTarget(s.Name, url, b.cred, k, p.Pid())
	if err != nil {
		p.Stop(10 * time.Second)
		return nil, err
	}
	hc := t.rc.Client
	r := &running{target: t, proc: p, port: port}
	if err := waitReady(ctx, hc, url, p.Done()); err != nil {
		p.Stop(10 * time.Second)
		return nil, fmt.Errorf("%s not ready: %w\n%s", s.Name, err, p.Describe())
	}
	r.startup = time.Since(begin)
	return r, nil
}

// directTarget is kind k of the server at url, reached directly as the front
// proxy with cred.
func directTarget(name, url string, cred *credentials, k *kind, pid int) (*target, error) {
	newClient := clients(url, k, cred.httpClient)
	rc, _, err := newClient()
	if err != nil {
		return nil, err
	}
	// Profiles and memory statistics are read as system:masters, whatever
	// user the workload is.
	admin := cred.as("serverload-admin", "system:masters").httpClient()
	return &target{name: name, k: k, rc: rc, newClient: newClient, procs: []*proc{{Name: name, Pid: pid, URL: url, HC: admin}}}, nil
}

// configTarget is kind k of the server cfg reaches (as cfg's user, on
// connections of the load generator's own: one pool per client), its
// process procName with pid.
func configTarget(name, procName string, cfg *rest.Config, k *kind, pid int) (*target, error) {
	tlsConfig, err := rest.TLSConfigFor(cfg)
	if err != nil {
		return nil, err
	}
	newClient := clients(cfg.Host, k, tlsHTTPClient(tlsConfig))
	rc, _, err := newClient()
	if err != nil {
		return nil, err
	}
	admin := tlsHTTPClient(tlsConfig)()
	return &target{name: name, k: k, rc: rc, newClient: newClient,
		procs: []*proc{{Name: procName, Pid: pid, URL: cfg.Host, HC: admin}}}, nil
}

func (r *running) stop() {
	if r.unroute != nil {
		r.unroute()
	}
	r.proc.Stop(20 * time.Second)
	closeIdle(r.rc.Client)
	for _, o := range r.also {
		o.stop()
	}
}

// waitReady polls GET /readyz every 10 ms until it answers 200.
func waitReady(ctx context.Context, hc *http.Client, url string, exited <-chan struct{}) error {
	deadline := time.Now().Add(2 * time.Minute)
	var last error
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/readyz", nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Errorf("/readyz: %d %s", resp.StatusCode, strings.TrimSpace(string(body)))
		} else {
			last = err
		}
		select {
		case <-exited:
			return fmt.Errorf("the process exited; last: %v", last)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("after 2m: %v", last)
		}
	}
}

// processCPU is the CPU time (user+sys, every thread) process pid has used
// so far, from /proc/<pid>/stat; 0 when it cannot be read. Linux counts it in
// clock ticks of 10 ms (USER_HZ is 100 on every architecture Go supports), so
// it is only meaningful over an operation of seconds.
func processCPU(pid int) time.Duration {
	f := procStat(pid)
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64) // field 14 of proc(5)
	stime, _ := strconv.ParseInt(f[12], 10, 64) // field 15
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// procStat is the fields of /proc/<pid>/stat after the command name (the
// first is field 3 of proc(5), the state); nil when it cannot be read.
func procStat(pid int) []string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	// The command name in parentheses may hold spaces; fields count from after it.
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(data[i+1:]))
}

// memory is a process's resident set: the peak (VmHWM) and the current
// (VmRSS), in bytes.
type memory struct{ HWM, RSS int64 }

func readMemory(pid int) (memory, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memory{}, err
	}
	defer f.Close()
	var m memory
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		fields := strings.Fields(v)
		if len(fields) != 2 || fields[1] != "kB" {
			continue
		}
		n, _ := strconv.ParseInt(fields[0], 10, 64)
		switch k {
		case "VmHWM":
			m.HWM = n * 1024
		case "VmRSS":
			m.RSS = n * 1024
		}
	}
	return m, sc.Err()
}

// localStartup starts the generated server in local mode (embedded etcd) on a
// fresh --data-dir and times it from exec to GET /readyz = 200 through the
// kubeconfig it writes, then stops it. It also reports the process's RSS once
// ready (with etcd inside).
func localStartup(ctx context.Context, bin, dir string) (time.Duration, memory, error) {
	data := filepath.Join(dir, "data")
	kubeconfig := filepath.Join(dir, "kubeconfig")
	begin := time.Now()
	proc, err := cluster.Start(filepath.Join(dir, "server.log"), bin,
		"--secure-port=0", "--data-dir="+data, "--write-kubeconfig="+kubeconfig)
	if err != nil {
		return 0, memory{}, err
	}
	defer proc.Stop(20 * time.Second)
	deadline := begin.Add(2 * time.Minute)
	var hc *http.Client
	var host string
	var last error
	for {
		if hc == nil {
			if cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig); err == nil {
				hc, err = restHTTPClient(cfg)
				if err != nil {
					return 0, memory{}, err
				}
				host = cfg.Host
			} else {
				last = err
			}
		}
		if hc != nil {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, host+"/readyz", nil)
			resp, err := hc.Do(req)
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					took := time.Since(begin)
					m, err := readMemory(proc.Pid())
					return took, m, err
				}
				last = fmt.Errorf("/readyz: %d", resp.StatusCode)
			} else {
				last = err
			}
		}
		select {
		case <-proc.Done():
			return 0, memory{}, fmt.Errorf("local mode server exited (last: %v)\n%s", last, proc.Describe())
		case <-ctx.Done():
			return 0, memory{}, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return 0, memory{}, errors.New("local mode server not ready after 2m")
		}
	}
}
