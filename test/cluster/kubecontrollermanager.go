package cluster

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Controllers are the kube-controller-manager controllers that act on every API of a cluster,
// aggregated ones included: they delete a namespace's objects, collect garbage across
// ownerReferences, count objects for ResourceQuotas, create namespaces' default
// ServiceAccounts and run StorageVersionMigrations. The PersistentVolumeClaim protection
// controller releases unused claims (the bundled etcd's backup claim), without which their
// namespace could never be deleted.
var Controllers = []string{
	"namespace-controller",
	"garbage-collector-controller",
	"resourcequota-controller",
	"serviceaccount-controller",
	"storage-version-migrator-controller",
	"persistentvolumeclaim-protection-controller",
}

// KubeControllerManager is a kube-controller-manager on 127.0.0.1 that runs Controllers against
// a KubeAPIServer with its defaults otherwise: its clients speak protobuf first, as in every
// cluster.
type KubeControllerManager struct {
	URL     string
	Process *Process
}

// StartKubeControllerManager starts kube-controller-manager against k as its admin, keeping its
// log in dir, with extra flags after its own, and waits for /healthz.
func StartKubeControllerManager(bin, dir string, k *KubeAPIServer, extra ...string) (*KubeControllerManager, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	args := []string{
		"--kubeconfig=" + k.AdminKubeconfig,
		"--authentication-kubeconfig=" + k.AdminKubeconfig,
		"--authorization-kubeconfig=" + k.AdminKubeconfig,
		"--bind-address=127.0.0.1", "--secure-port=" + strconv.Itoa(port),
		"--controllers=" + strings.Join(Controllers, ","),
		"--leader-elect=false",
		// Quick enough for tests; a cluster's defaults are minutes.
		"--resource-quota-sync-period=5s",
		"--namespace-sync-period=5s",
	}
	c := &KubeControllerManager{URL: "https://127.0.0.1:" + strconv.Itoa(port)}
	if c.Process, err = Start(filepath.Join(dir, "kube-controller-manager.log"), bin, append(args, extra...)...); err != nil {
		return nil, err
	}
	// Its serving certificate is self-signed; /healthz is all that is asked of it.
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	err = Poll(90*time.Second, c.Process.Done(), func() error {
		resp, err := hc.Get(c.URL + "/healthz")
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%w: /healthz: %s", errNotReady, resp.Status)
		}
		return nil
	})
	if err != nil {
		c.Stop()
		return nil, fmt.Errorf("kube-controller-manager not ready: %w\n%s", err, c.Process.Describe())
	}
	return c, nil
}

// Stop ends kube-controller-manager.
func (c *KubeControllerManager) Stop() { c.Process.Stop(15 * time.Second) }
