//go:build apigen_etcdonly

package server

import (
	"context"
	"errors"

	"github.com/spf13/pflag"
	"k8s.io/apiserver/pkg/server/healthz"
)

// This server stores in etcd only: apigen copies this file instead of
// datastore.go and datastorewake.go into a project whose pkg/apis/doc.go does
// not say +apigen:sql=true, so that neither kine nor a SQL driver is linked,
// and --help offers no flag of theirs. The rest of the runtime asks these
// stand-ins, which always answer etcd.

const (
	storedInHelp       = "in etcd"
	localStorageHelp   = ""
	clusterStorageHelp = ""
	clusterFlagHelp    = "Run in cluster mode although no other flag selects it, " +
		"with authentication and authorization from the in-cluster defaults."
)

// kineSocket is unused: storage is never kine here.
const kineSocket = "kine.sock"

// datastoreOptions has no flags: storage is etcd.
type datastoreOptions struct{ source string }

func newDatastoreOptions(string) *datastoreOptions { return &datastoreOptions{} }

func (*datastoreOptions) addFlags(*pflag.FlagSet) {}

func (*datastoreOptions) resolve(*pflag.FlagSet) []error { return nil }

func (*datastoreOptions) enabled() bool { return false }

type kine struct{}

func (*kine) Close() {}

func (*kine) readyzChecks() []healthz.HealthChecker { return nil }

func startKine(context.Context, *datastoreOptions, string) (*kine, string, error) {
	return nil, "", errors.New("this server is built without SQL storage (+apigen:sql)")
}
