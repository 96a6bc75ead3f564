package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/fileutil"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// runLocal runs the server on 127.0.0.1 with an embedded etcd (or kine, given
// --datastore-endpoint) and a local CA, both kept in o.dataDir, until ctx is
// cancelled. The API server drains before the storage stops, so no
// acknowledged write is lost.
func (o *options) runLocal(ctx context.Context, out io.Writer) (err error) {
	// Everything in it is the server's alone: the CA's key, etcd's data and
	// socket (or kine's). An existing directory is tightened too.
	if err := os.MkdirAll(o.dataDir, 0o700); err != nil {
		return err
	}
	if err := os.Chmod(o.dataDir, 0o700); err != nil {
		return err
	}
	socketName := "etcd.sock"
	if o.datastore.enabled() {
		socketName = kineSocket
	}
	socket, err := socketPath(o.dataDir, socketName)
	if err != nil {
		return err
	}
	lock, err := lockDataDir(o.dataDir)
	if err != nil {
		return err
	}
	defer lock.Close()

	pki, err := loadOrCreatePKI(filepath.Join(o.dataDir, "pki"), o.apis.Name)
	if err != nil {
		return err
	}

	// Listen before anything else runs, so a busy port fails fast and
	// --secure-port=0 has a port to put into the kubeconfig.
	ss := o.recommended.SecureServing
	addr := net.JoinHostPort(ss.BindAddress.String(), strconv.Itoa(ss.BindPort))
	listener, err := net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("--secure-port %d: %s is in use by another program; pick another port with --secure-port=<port>, or a free one with --secure-port=0", ss.BindPort, addr)
	}
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			listener.Close() // the server owns it once it runs, and closes it then
		}
	}()

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var etcdURL string
	if o.datastore.enabled() {
		// A database that is unreachable later makes the server not ready
		// (its etcd check goes through kine), not stop.
		store, url, err := startKine(ctx, o.datastore, socket)
		if err != nil {
			return err
		}
		defer store.Close() // deferred calls run last-in first-out: after the server has drained
		etcdURL = url
	} else {
		etcdLog := filepath.Join(o.dataDir, "etcd.log")
		etcd, url, err := startEtcd(ctx, filepath.Join(o.dataDir, "etcd"), socket, etcdLog)
		if err != nil {
			return err
		}
		defer etcd.Close() // deferred calls run last-in first-out: after the server has drained
		etcdURL = url

		// If etcd fails underneath the server, stop instead of answering 500s forever.
		go func() {
			for {
				select {
				case err := <-etcd.Err():
					if err != nil {
						cancel(fmt.Errorf("embedded etcd stopped: %w (its log: %s)", err, etcdLog))
						return
					}
				case <-ctx.Done():
					return
				}
			}
		}()
	}

	if err := o.applyLocal(etcdURL, listener, pki); err != nil {
		return err
	}
	s, err := o.newServer(func(c *genericapiserver.RecommendedConfig) {
		c.ExternalAddress = listener.Addr().String()
		c.Authentication.Authenticator = refuseAnonymous(c.Authentication.Authenticator)
		// Only the local CA's holder can authenticate at all, so every
		// authenticated user may do anything (the admin is also in system:masters).
		c.Authorization.Authorizer = authorizerfactory.NewPrivilegedGroups(user.SystemPrivilegedGroup, user.AllAuthenticated)
	})
	if err != nil {
		return err
	}

	serverURL := "https://" + listener.Addr().String()
	if err := writeKubeconfig(o.kubeconfigPath, o.apis.Name, serverURL, pki); err != nil {
		return fmt.Errorf("writing --write-kubeconfig: %w", err)
	}
	s.AddPostStartHookOrDie("local-mode-kubeconfig", func(hook genericapiserver.PostStartHookContext) error {
		fmt.Fprintf(out, "%s API server listening on %s; admin kubeconfig: %s\n", o.apis.Name, serverURL, o.kubeconfigPath)
		fmt.Fprintf(out, "kubectl --kubeconfig %s %s\n", o.kubeconfigPath, o.tryCommand(hook.LoopbackClientConfig))
		return nil
	})

	err = s.PrepareRun().RunWithContext(ctx)
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return cause // the embedded etcd failed
	}
	return err
}

// applyLocal points the options at the embedded etcd and the local CA, and
// drops what needs a kube-apiserver.
func (o *options) applyLocal(etcdURL string, listener net.Listener, pki *localPKI) error {
	ro := o.recommended
	ro.Etcd.StorageConfig.Transport.ServerList = []string{etcdURL}

	ss := ro.SecureServing
	ss.Listener = listener
	if ss.ServerCert.CertKey.CertFile == "" && ss.ServerCert.CertKey.KeyFile == "" {
		// Issued on every start, so it always names the current bind address;
		// clients trust the CA, not this certificate.
		certPEM, keyPEM, err := pki.issueServing(ss.BindAddress)
		if err != nil {
			return err
		}
		if ss.ServerCert.GeneratedCert, err = dynamiccertificates.NewStaticCertKeyContent("local-serving-cert", certPEM, keyPEM); err != nil {
			return err
		}
	}

	// Clients authenticate with certificates from the local CA. Nothing is
	// delegated: without a kubeconfig the delegating options skip TokenReview
	// and SubjectAccessReview, and always allow the AlwaysAllowGroups.
	authn := ro.Authentication
	authn.ClientCert.ClientCA = pki.caFile
	authn.RemoteKubeConfigFileOptional = true
	authn.SkipInClusterLookup = true
	// Authorization is local too (see runLocal): the delegating options would
	// only warn that they have no kubeconfig for SubjectAccessReview.
	ro.Authorization = nil

	// These need a kube-apiserver: the core API client and the admission
	// plugins that use it, and API priority and fairness, whose configuration
	// lives in flowcontrol.apiserver.k8s.io.
	ro.CoreAPI = nil
	ro.Admission = nil
	ro.Features.EnablePriorityAndFairness = false
	return nil
}

// refuseAnonymous answers 401 to requests without valid credentials. The
// delegating authentication options always add the anonymous authenticator
// (their Anonymous field is not applied), so it is undone here.
func refuseAnonymous(a authenticator.Request) authenticator.Request {
	return authenticator.RequestFunc(func(req *http.Request) (*authenticator.Response, bool, error) {
		resp, ok, err := a.AuthenticateRequest(req)
		if ok && resp.User.GetName() == user.Anonymous {
			return nil, false, nil
		}
		return resp, ok, err
	})
}

// lockDataDir makes a second server on the same data dir fail at once; etcd
// itself would block on its database lock without saying why.
func lockDataDir(dir string) (io.Closer, error) {
	path := filepath.Join(dir, "lock")
	f, err := fileutil.TryLockFile(path, os.O_WRONLY|os.O_CREATE, 0o600)
	if errors.Is(err, fileutil.ErrLocked) {
		return nil, fmt.Errorf("--data-dir %s is in use by another server (it holds %s); stop that one or use another --data-dir", dir, path)
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}

// etcdStartTimeout bounds a start that never becomes ready, such as a data
// dir that cannot be read.
const etcdStartTimeout = time.Minute

// startEtcd starts a single-member etcd with its data in dir and returns it
// with the endpoint its clients use once it is ready. etcd has no
// authentication of its own here, so it must be reachable by the server only:
// it listens on a unix socket in the 0700 data dir (made 0600 as well), has
// no peer listener, and no TCP port at all.
func startEtcd(ctx context.Context, dir, socket, logFile string) (*embeddedEtcd, string, error) {
	cfg := embed.NewConfig()
	cfg.Dir = dir
	client := []url.URL{{Scheme: "unix", Path: socket}}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = client, client
	// A single member never dials a peer: no peer listener. The advertised
	// peer URL is only recorded in the membership (port 0 is nobody's), and
	// stays what data dirs of earlier versions hold.
	cfg.ListenPeerUrls = nil
	cfg.AdvertisePeerUrls = []url.URL{{Scheme: "http", Host: "127.0.0.1:0"}}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	// Twice etcd's default, as the bundled etcd's --quota-backend-bytes: 10^6 objects of ~1 KiB
	// fit with the history the server keeps between compactions (docs/performance/scale-1e6.md).
	cfg.QuotaBackendBytes = 4 << 30
	// To a file: etcd logs every listener it closes on shutdown as an error,
	// which would end each Ctrl-C with stack traces. Failures while running
	// reach the server through Err.
	cfg.LogLevel = "warn"
	cfg.LogOutputs = []string{logFile}
	cfg.EnableLogRotation = true
	cfg.LogRotationConfigJSON = `{"maxsize": 10, "maxbackups": 1}`
	// Validate builds that file logger; it is wrapped so that a clean stop
	// leaves no error in the log.
	if err := cfg.Validate(); err != nil {
		return nil, "", fmt.Errorf("starting embedded etcd in %s: %w", dir, err)
	}
	stopping := &atomic.Bool{}
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(cfg.GetLogger().WithOptions(zap.WrapCore(func(c zapcore.Core) zapcore.Core {
		return quietStop{c, stopping}
	})))

	started, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, "", fmt.Errorf("starting embedded etcd in %s: %w", dir, err)
	}
	e := &embeddedEtcd{started, stopping}
	// The data dir already keeps everyone else out; the socket's own mode
	// says so too, whatever the umask was.
	if err := os.Chmod(socket, 0o600); err != nil {
		e.Close()
		return nil, "", fmt.Errorf("starting embedded etcd in %s: %w", dir, err)
	}
	select {
	case <-e.Server.ReadyNotify():
		return e, "unix:" + socket, nil
	case err := <-e.Err():
		e.Close()
		return nil, "", fmt.Errorf("starting embedded etcd in %s: %w (its log: %s)", dir, err, logFile)
	case <-time.After(etcdStartTimeout):
		e.Close()
		return nil, "", fmt.Errorf("embedded etcd in %s was not ready after %v (its log: %s)", dir, etcdStartTimeout, logFile)
	case <-ctx.Done():
		e.Close()
		return nil, "", ctx.Err()
	}
}

// embeddedEtcd is a running etcd whose Close is quiet in its log.
type embeddedEtcd struct {
	*embed.Etcd
	stopping *atomic.Bool
}

func (e *embeddedEtcd) Close() {
	e.stopping.Store(true)
	e.Etcd.Close()
}

// quietStop drops, once etcd is being stopped, the error etcd logs for each of
// its servers as Close shuts their listeners ("setting up serving from
// embedded etcd failed." with "use of closed network connection", "mux:
// server closed", "http: Server closed"). Other errors are kept.
type quietStop struct {
	zapcore.Core
	stopping *atomic.Bool
}

const etcdServeFailed = "setting up serving from embedded etcd failed."

func (q quietStop) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if e.Message == etcdServeFailed && q.stopping.Load() {
		return ce
	}
	return q.Core.Check(e, ce)
}

func (q quietStop) With(fields []zapcore.Field) zapcore.Core {
	return quietStop{q.Core.With(fields), q.stopping}
}

// maxSocketPath is the longest unix socket path every platform takes (the
// kernel's sun_path holds 104 bytes on macOS, 108 on Linux, with a NUL).
const maxSocketPath = 103

// socketPath is where the storage (embedded etcd, etcd.sock, or kine,
// kine.sock) listens: in the data dir, by its absolute path, or relative to the
// working directory when only that is short enough (the server never changes
// directory).
func socketPath(dataDir, name string) (string, error) {
	abs, err := filepath.Abs(filepath.Join(dataDir, name))
	if err != nil {
		return "", err
	}
	if len(abs) <= maxSocketPath {
		return abs, nil
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, abs); err == nil && len(rel) <= maxSocketPath {
			return rel, nil
		}
	}
	return "", fmt.Errorf("--data-dir %s: the socket %s would be longer than the %d bytes a unix socket path may have; use a shorter --data-dir",
		dataDir, abs, maxSocketPath)
}

// tryCommand is the kubectl command, after --kubeconfig, that start-up
// suggests: get the first resource of the first served group's preferred
// version.
func (o *options) tryCommand(loopback *rest.Config) string {
	dc, err := discovery.NewDiscoveryClientForConfig(loopback)
	if err != nil {
		return "api-resources"
	}
	groups, err := dc.ServerGroups()
	if err != nil {
		return "api-resources"
	}
	for _, g := range groups.Groups {
		list, err := dc.ServerResourcesForGroupVersion(g.PreferredVersion.GroupVersion)
		if err != nil {
			continue
		}
		var names []string
		for _, r := range list.APIResources {
			if !strings.Contains(r.Name, "/") {
				names = append(names, r.Name)
			}
		}
		if len(names) > 0 {
			return "get " + slices.Min(names)
		}
	}
	return "api-resources"
}

// writeKubeconfig writes an admin kubeconfig for server, with every
// credential embedded so the file can be copied anywhere.
func writeKubeconfig(path, name, server string, pki *localPKI) error {
	cluster, authInfo := name+"-local", name+"-admin"
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[cluster] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: pki.caPEM}
	cfg.AuthInfos[authInfo] = &clientcmdapi.AuthInfo{ClientCertificateData: pki.adminCertPEM, ClientKeyData: pki.adminKeyPEM}
	cfg.Contexts[cluster] = &clientcmdapi.Context{Cluster: cluster, AuthInfo: authInfo}
	cfg.CurrentContext = cluster
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return writeFileAtomic(path, data, 0o600)
}

// writeFileAtomic replaces path with data, so a crash never leaves a
// truncated kubeconfig or key behind.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // fails harmlessly once renamed
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
