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
	"strconv"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/fileutil"
	"go.etcd.io/etcd/server/v3/embed"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// runLocal runs the server on 127.0.0.1 with an embedded etcd and a local CA,
// both kept in o.dataDir, until ctx is cancelled. The API server drains before
// etcd stops, so no acknowledged write is lost.
func (o *options) runLocal(ctx context.Context, out io.Writer) (err error) {
	if err := os.MkdirAll(o.dataDir, 0o700); err != nil {
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
	listener, err := net.Listen("tcp", net.JoinHostPort(ss.BindAddress.String(), strconv.Itoa(ss.BindPort)))
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			listener.Close() // the server owns it once it runs, and closes it then
		}
	}()

	etcdLog := filepath.Join(o.dataDir, "etcd.log")
	etcd, etcdURL, err := startEtcd(ctx, filepath.Join(o.dataDir, "etcd"), etcdLog)
	if err != nil {
		return err
	}
	defer etcd.Close() // deferred calls run last-in first-out: after the server has drained

	// If etcd fails underneath the server, stop instead of answering 500s forever.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
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

	if err := o.applyLocal(etcdURL, listener, pki); err != nil {
		return err
	}
	s, err := o.newServer(func(c *genericapiserver.RecommendedConfig) {
		c.ExternalAddress = listener.Addr().String()
		c.Authentication.Authenticator = refuseAnonymous(c.Authentication.Authenticator)
	})
	if err != nil {
		return err
	}

	serverURL := "https://" + listener.Addr().String()
	if err := writeKubeconfig(o.kubeconfigPath, o.apis.Name, serverURL, pki); err != nil {
		return fmt.Errorf("writing --write-kubeconfig: %w", err)
	}
	s.AddPostStartHookOrDie("local-mode-kubeconfig", func(genericapiserver.PostStartHookContext) error {
		fmt.Fprintf(out, "%s API server listening on %s; admin kubeconfig: %s\n", o.apis.Name, serverURL, o.kubeconfigPath)
		return nil
	})

	err = s.PrepareRun().RunWithContext(ctx)
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return cause // etcd failed
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
	authz := ro.Authorization
	authz.RemoteKubeConfigFileOptional = true
	// Only the local CA's holder can authenticate at all, so every
	// authenticated user may do anything (the admin is also in system:masters).
	authz.AlwaysAllowGroups = append(authz.AlwaysAllowGroups, user.AllAuthenticated)

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
// with its client URL once it is ready.
func startEtcd(ctx context.Context, dir, logFile string) (*embed.Etcd, string, error) {
	cfg := embed.NewConfig()
	cfg.Dir = dir
	// Port 0: the kernel picks free ports, so nothing can race us for them.
	// The advertised URLs are never dialled in a single-member cluster; the
	// real client address is read back from the listener.
	loopback := []url.URL{{Scheme: "http", Host: "127.0.0.1:0"}}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = loopback, loopback
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = loopback, loopback
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	// To a file: etcd logs every listener it closes on shutdown as an error,
	// which would end each Ctrl-C with stack traces. Failures while running
	// reach the server through Err.
	cfg.LogLevel = "warn"
	cfg.LogOutputs = []string{logFile}
	cfg.EnableLogRotation = true
	cfg.LogRotationConfigJSON = `{"maxsize": 10, "maxbackups": 1}`

	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, "", fmt.Errorf("starting embedded etcd in %s: %w", dir, err)
	}
	select {
	case <-e.Server.ReadyNotify():
		return e, "http://" + e.Clients[0].Addr().String(), nil
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
