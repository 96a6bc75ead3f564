// Package servertest starts the project's API server inside a test, the way
// net/http/httptest starts an HTTP server: local mode on an embedded etcd in
// a temporary directory, 127.0.0.1 on a free port, stopped when the test ends.
package servertest

import (
	"testing"

	"k8s.io/client-go/rest"

	"github.com/apigen-dev/apigen/templates/server"
)

// Start runs the server described by apis for the duration of t and returns
// a client configuration for its admin (system:masters, so every request is
// allowed). The server is ready (/readyz answers 200) when Start returns and
// is stopped, with its etcd, in t.Cleanup.
//
//	cfg := servertest.Start(t, apiserver.APIs())
//	client, err := dynamic.NewForConfig(cfg)
func Start(t testing.TB, apis server.APIs) *rest.Config {
	t.Helper()
	s, err := server.StartInProcess(t.Context(), apis, t.TempDir())
	if err != nil {
		t.Fatalf("starting the %s API server: %v", apis.Name, err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("stopping the %s API server: %v", apis.Name, err)
		}
	})
	return rest.CopyConfig(s.Config)
}
