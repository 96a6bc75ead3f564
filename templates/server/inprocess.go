package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// InProcess is a server started by StartInProcess, for tests and tools that
// need a real API server without a cluster.
type InProcess struct {
	// Config reaches the server as the local admin (a client certificate in
	// system:masters, trusted by the server's local CA).
	Config *rest.Config
	// Dir holds the embedded etcd's data and log (data/etcd.log), the local
	// CA and the admin kubeconfig.
	Dir string

	cancel context.CancelFunc
	done   chan error
	err    error
	closed bool
}

// inProcessTimeout bounds the start (until /readyz answers) and the stop.
const inProcessTimeout = 2 * time.Minute

// StartInProcess runs the server described by apis in local mode inside this
// process: an embedded etcd with its data in dir, 127.0.0.1 on a port the
// kernel picks, and a fresh local CA. It returns once /readyz answers 200;
// Stop ends it. ctx bounds the whole run.
//
// Servers share process-wide state (feature gates, metrics), so start at most
// one at a time per test binary unless your tests tolerate that.
func StartInProcess(ctx context.Context, apis APIs, dir string) (*InProcess, error) {
	kubeconfig := filepath.Join(dir, "kubeconfig")
	ctx, cancel := context.WithCancel(ctx)
	cmd := NewCommand(ctx, apis)
	cmd.SetArgs([]string{"--data-dir", filepath.Join(dir, "data"), "--write-kubeconfig", kubeconfig, "--secure-port", "0"})
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	cmd.SetOut(io.Discard)
	s := &InProcess{Dir: dir, cancel: cancel, done: make(chan error, 1)}
	go func() { s.done <- cmd.Execute() }()

	cfg, err := s.waitReady(kubeconfig)
	if err != nil {
		if stopErr := s.Stop(); stopErr != nil {
			err = fmt.Errorf("%w (stopping it: %v)", err, stopErr)
		}
		return nil, err
	}
	s.Config = cfg
	return s, nil
}

// waitReady polls /readyz with the admin kubeconfig's credentials.
func (s *InProcess) waitReady(kubeconfig string) (*rest.Config, error) {
	deadline := time.Now().Add(inProcessTimeout)
	last := "no kubeconfig written yet"
	for time.Now().Before(deadline) {
		select {
		case err := <-s.done:
			s.done <- err // for Stop
			if err == nil {
				err = errors.New("it stopped")
			}
			return nil, fmt.Errorf("server exited before it was ready: %w", err)
		case <-time.After(100 * time.Millisecond):
		}
		if _, err := os.Stat(kubeconfig); err != nil {
			continue
		}
		cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
		if err != nil {
			return nil, err
		}
		client, err := rest.HTTPClientFor(cfg)
		if err != nil {
			return nil, err
		}
		resp, err := client.Get(cfg.Host + "/readyz")
		if err != nil {
			last = err.Error()
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return cfg, nil
		}
		last = fmt.Sprintf("%d %s", resp.StatusCode, body)
	}
	return nil, fmt.Errorf("server not ready within %v; last /readyz: %s", inProcessTimeout, last)
}

// Stop shuts the server down, drains it, stops etcd and returns what the
// server returned. Calling it again returns the same.
func (s *InProcess) Stop() error {
	if s.closed {
		return s.err
	}
	s.closed = true
	s.cancel()
	select {
	case s.err = <-s.done:
	case <-time.After(inProcessTimeout):
		s.err = fmt.Errorf("server did not stop within %v", inProcessTimeout)
	}
	return s.err
}
