//go:build !apigen_etcdonly

package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"
	kinedrivers "github.com/k3s-io/kine/pkg/drivers"
	"github.com/k3s-io/kine/pkg/drivers/generic"
	"github.com/k3s-io/kine/pkg/drivers/sqlite"
	kineserver "github.com/k3s-io/kine/pkg/server"
	kinetls "github.com/k3s-io/kine/pkg/tls"
	"github.com/sirupsen/logrus"
	"github.com/spf13/pflag"
	etcdversion "go.etcd.io/etcd/api/v3/version"
	"go.etcd.io/etcd/server/v3/embed"
	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"
	"k8s.io/apiserver/pkg/server/healthz"

	// The SQL databases --datastore-endpoint takes. kine's endpoint package would
	// link every driver it has (NATS, t4 with its object storage); these three are
	// what the flag offers.
	_ "github.com/k3s-io/kine/pkg/drivers/mysql"
	_ "github.com/k3s-io/kine/pkg/drivers/pgsql"
	_ "github.com/k3s-io/kine/pkg/drivers/sqlite"
)

// SQL storage is linked into a project's server only when its pkg/apis/doc.go
// says +apigen:sql=true: apigen copies this file and datastorewake.go then, and
// etcdonly.go otherwise (the apigen_etcdonly build tag builds that choice here).

// What the help texts say of SQL storage (etcdonly.go: etcd alone): after local
// mode's embedded etcd, after cluster mode's --etcd-servers, as what
// --cluster is for, and where --storage-media-type applies.
const (
	storedInHelp       = "in etcd or the SQL database"
	localStorageHelp   = "\n(or, given --datastore-endpoint, kine on that SQL database)"
	clusterStorageHelp = " (or the --datastore-endpoint database)"
	clusterFlagHelp    = "Run in cluster mode although no other flag selects it: with --datastore-endpoint in a Deployment, " +
		"where authentication and authorization use the in-cluster defaults."
)

// datastoreSchemes are the URL schemes --datastore-endpoint takes, as kine
// (and k3s) spell them.
var datastoreSchemes = []string{"sqlite", "postgres", "postgresql", "mysql"}

// datastoreOptions select SQL storage through kine, in-process, instead of
// etcd: the server's etcd client talks to kine on a unix socket only the
// server's user can reach, and kine to the database.
type datastoreOptions struct {
	endpoint     string // --datastore-endpoint
	endpointFile string // --datastore-endpoint-file
	// envName is the environment variable read when neither flag is given,
	// <NAME>_DATASTORE_ENDPOINT, as k3s reads K3S_DATASTORE_ENDPOINT.
	envName string
	tls     kinetls.Config // --datastore-cafile, --datastore-certfile, --datastore-keyfile

	// Set by resolve: the endpoint, and where it came from for messages
	// (never the endpoint itself: it may hold a password).
	resolved, source string
}

func newDatastoreOptions(name string) *datastoreOptions {
	env := strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' {
			return r - 'a' + 'A'
		}
		if 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			return r
		}
		return '_'
	}, name)
	return &datastoreOptions{envName: env + "_DATASTORE_ENDPOINT"}
}

func (d *datastoreOptions) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&d.endpoint, "datastore-endpoint", d.endpoint,
		"Store objects in a SQL database through kine instead of etcd, in local and in cluster mode: "+
			"sqlite://<path> (one server only), postgres://<user>@<host>:<port>/<database>?<params> or "+
			"mysql://<user>@tcp(<host>:<port>)/<database>. Arguments show in ps: "+
			"give credentials with --datastore-endpoint-file or $"+d.envName+" instead.")
	fs.StringVar(&d.endpointFile, "datastore-endpoint-file", d.endpointFile,
		"Read --datastore-endpoint from this file (a mounted Secret's key, say).")
	fs.StringVar(&d.tls.CAFile, "datastore-cafile", d.tls.CAFile,
		"CA bundle that verifies the database's serving certificate (postgres: sslmode=verify-full unless the endpoint says otherwise).")
	fs.StringVar(&d.tls.CertFile, "datastore-certfile", d.tls.CertFile,
		"Client certificate for the database.")
	fs.StringVar(&d.tls.KeyFile, "datastore-keyfile", d.tls.KeyFile,
		"Client certificate's key for the database.")
}

// enabled reports whether resolve found an endpoint.
func (d *datastoreOptions) enabled() bool { return d.resolved != "" }

// resolve finds the endpoint (the flag, the file, then the environment) and
// checks its form; every error names where the endpoint came from.
func (d *datastoreOptions) resolve(fs *pflag.FlagSet) []error {
	d.resolved, d.source = "", ""
	switch {
	case fs.Changed("datastore-endpoint") && fs.Changed("datastore-endpoint-file"):
		return []error{errors.New("--datastore-endpoint and --datastore-endpoint-file are mutually exclusive; give one")}
	case fs.Changed("datastore-endpoint"):
		d.resolved, d.source = d.endpoint, "--datastore-endpoint"
		if d.resolved == "" {
			return []error{errors.New("--datastore-endpoint is empty")}
		}
	case fs.Changed("datastore-endpoint-file"):
		d.source = "--datastore-endpoint-file " + d.endpointFile
		data, err := os.ReadFile(d.endpointFile)
		if err != nil {
			return []error{fmt.Errorf("--datastore-endpoint-file: %w", err)}
		}
		if d.resolved = strings.TrimSpace(string(data)); d.resolved == "" {
			return []error{fmt.Errorf("%s: the file is empty", d.source)}
		}
	default:
		d.resolved, d.source = os.Getenv(d.envName), "$"+d.envName
	}

	var errs []error
	if d.resolved != "" {
		endpoint, err := checkDatastoreEndpoint(d.resolved)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", d.source, err))
		}
		d.resolved = endpoint
	}
	for _, f := range []struct{ name, path string }{
		{"datastore-cafile", d.tls.CAFile}, {"datastore-certfile", d.tls.CertFile}, {"datastore-keyfile", d.tls.KeyFile},
	} {
		switch {
		case f.path == "":
		case !d.enabled():
			errs = append(errs, fmt.Errorf("--%s applies to --datastore-endpoint, which is not given", f.name))
		case strings.HasPrefix(d.resolved, "sqlite://"):
			errs = append(errs, fmt.Errorf("--%s applies to postgres and mysql, not to sqlite", f.name))
		default:
			if _, err := os.Stat(f.path); err != nil {
				errs = append(errs, fmt.Errorf("--%s: %w", f.name, err))
			}
		}
	}
	if (d.tls.CertFile == "") != (d.tls.KeyFile == "") {
		errs = append(errs, errors.New("--datastore-certfile and --datastore-keyfile go together; give both or neither"))
	}
	return errs
}

// checkDatastoreEndpoint checks an endpoint's scheme and form as far as its
// driver's own parser does, and returns it as kine takes it. Its errors never
// quote the endpoint, which may hold a password.
func checkDatastoreEndpoint(endpoint string) (string, error) {
	scheme, rest, ok := strings.Cut(endpoint, "://")
	if !ok {
		return "", errors.New("want <scheme>://..., such as sqlite://<path>, postgres://... or mysql://...")
	}
	if !slices.Contains(datastoreSchemes, scheme) {
		return "", fmt.Errorf("unknown scheme %q; want one of %s", scheme, strings.Join(datastoreSchemes, ", "))
	}
	switch scheme {
	case "sqlite":
		path, params, _ := strings.Cut(rest, "?")
		if path == "" {
			return "", errors.New("sqlite:// needs the database file's path, such as sqlite://data/state.db")
		}
		// kine's own defaults (WAL, a busy timeout, immediate transactions), which
		// k3s passes too; without them concurrent writes fail with "database is
		// locked". kine drops them all when the endpoint has parameters of its own,
		// so a user who sets one (_synchronous=FULL) would lose the rest: each
		// default the endpoint does not set, under any of its names, is added.
		return sqliteWithDefaults(endpoint, params)
	case "postgres", "postgresql":
		if _, err := url.Parse(endpoint); err != nil {
			var uerr *url.Error
			if errors.As(err, &uerr) {
				err = uerr.Err // the error alone: url.Error quotes the whole URL
			}
			return "", fmt.Errorf("not a postgres URL: %w", err)
		}
	case "mysql":
		if _, err := mysql.ParseDSN(rest); err != nil {
			return "", fmt.Errorf("not a mysql DSN (<user>:<password>@tcp(<host>:<port>)/<database>): %w", err)
		}
	}
	return endpoint, nil
}

// sqliteParamNames are the names SQLite's driver takes for one setting: a default
// is not added where the endpoint sets its setting under another name.
var sqliteParamNames = [][]string{{"_journal_mode", "_journal"}, {"_busy_timeout", "_timeout"}, {"_synchronous", "_sync"}}

// sqliteWithDefaults returns a sqlite endpoint with its parameters params, followed by
// each of kine's default parameters that params does not set.
func sqliteWithDefaults(endpoint, params string) (string, error) {
	given, err := url.ParseQuery(params)
	if err != nil {
		return "", fmt.Errorf("sqlite:// parameters: %w", err)
	}
	set := func(name string) bool {
		for _, names := range sqliteParamNames {
			if slices.Contains(names, name) {
				return slices.ContainsFunc(names, given.Has)
			}
		}
		return given.Has(name)
	}
	var added []string
	for _, p := range strings.Split(sqlite.DefaultParams, "&") {
		if name, _, _ := strings.Cut(p, "="); !set(name) {
			added = append(added, p)
		}
	}
	if len(added) == 0 {
		return endpoint, nil
	}
	if params == "" {
		return strings.TrimSuffix(endpoint, "?") + "?" + strings.Join(added, "&"), nil
	}
	return endpoint + "&" + strings.Join(added, "&"), nil
}

// kineSocket is the socket kine listens on in a server's private directory.
const kineSocket = "kine.sock"

// kine's settings that its command line would default (k3s uses the same).
const (
	// How often kine polls the database for others' writes: the backstop for
	// the wake-ups of datastorewake.go, which bring them at once.
	kinePollInterval   = time.Second
	kineNotifyInterval = 5 * time.Second // watch progress notifications
	kineMaxIdleConns   = 20
	kineMaxIdleTime    = 2 * time.Minute
	kineCompactTimeout = 5 * time.Second
	kineCompactRetain  = 1000
	kineBatchSize      = 1000
	kinePollBatchSize  = 500
	// kineSetupAttempts and kineSetupRetry: how often, and how far apart,
	// startKine tries to set up the database (see startKine).
	kineSetupAttempts = 5
	kineSetupRetry    = time.Second
	// kineStopTimeout bounds the graceful stop of kine's gRPC server, after
	// the API server has drained.
	kineStopTimeout = 5 * time.Second
)

// kine is a running kine: an etcd API on a unix socket, over a SQL database.
type kine struct {
	grpc   *grpc.Server
	cancel context.CancelFunc
	wg     *sync.WaitGroup
	// wakeupsReady is nil once other replicas' writes wake this one
	// (datastorewake.go); nil itself on SQLite, which has no other replicas.
	wakeupsReady func() error
}

// readyzChecks are the checks that hold a replica out of its Service until its
// storage serves it as a ready one should: until the other replicas' writes
// wake it.
func (k *kine) readyzChecks() []healthz.HealthChecker {
	if k.wakeupsReady == nil {
		return nil
	}
	return []healthz.HealthChecker{healthz.NamedCheck(kineWakeReadyCheck, func(*http.Request) error {
		return k.wakeupsReady()
	})}
}

// startKine connects to the database (retrying for as long as kine does, or
// until ctx ends) and serves etcd's API on socket, made 0600, for the
// server's etcd client. It returns that client's endpoint.
func startKine(ctx context.Context, d *datastoreOptions, socket string) (*kine, string, error) {
	// kine logs with logrus, by default every start-up step; its warnings
	// and errors (a database it cannot reach) are what an operator needs.
	logrus.SetLevel(logrus.WarnLevel)

	// The backend outlives ctx: the API server drains on ctx's end and still
	// writes meanwhile. Until the start is done, ctx can cancel it.
	bctx, cancel := context.WithCancel(context.Background())
	stopStarting := context.AfterFunc(ctx, cancel)
	defer stopStarting()
	k := &kine{cancel: cancel, wg: &sync.WaitGroup{}}
	fail := func(err error) (*kine, string, error) {
		k.Close()
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		return nil, "", fmt.Errorf("%s: %w", d.source, err)
	}

	// Replicas started at once on an empty database (a Deployment's pods) set
	// it up at once: kine's CREATE TABLE/INDEX IF NOT EXISTS and its first
	// row race in the database, and all but one fail with a duplicate key.
	// Tried again, the setup finds everything in place.
	var backend kineserver.Backend
	for attempt := 1; ; attempt++ {
		actx, stopAttempt := context.WithCancel(bctx)
		var err error
		if backend, err = openKine(actx, k.wg, d); err == nil {
			k.cancel = func() { stopAttempt(); cancel() }
			break
		}
		stopAttempt() // closes this attempt's connections
		if attempt == kineSetupAttempts || ctx.Err() != nil {
			return fail(err)
		}
		logrus.Warnf("Setting up the database failed (another server may be setting it up too), trying again in %s: %v", kineSetupRetry, err)
		select {
		case <-ctx.Done():
			return fail(ctx.Err())
		case <-time.After(kineSetupRetry):
		}
	}

	// etcd's own server limits and keepalives, as kine's endpoint package sets them.
	k.grpc = grpc.NewServer(
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: embed.DefaultGRPCKeepAliveMinTime}),
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: embed.DefaultGRPCKeepAliveInterval, Timeout: embed.DefaultGRPCKeepAliveTimeout}),
		grpc.MaxConcurrentStreams(embed.DefaultMaxConcurrentStreams),
		grpc.MaxRecvMsgSize(int(embed.DefaultMaxRequestBytes)+512*1024),
	)
	// kine answers etcd's Status with this version; the API server reads it to
	// decide whether it may ask for watch progress, which kine serves.
	// Writes through this replica wake the others' kine at once (datastorewake.go).
	announcing, ready, err := startWakeups(bctx, k.wg, d, checkedCreates{backend})
	if err != nil {
		return fail(err)
	}
	k.wakeupsReady = ready
	kineserver.New(announcing, "unix", kineNotifyInterval, etcdversion.Version).Register(k.grpc)

	if err := os.Remove(socket); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fail(err)
	}
	l, err := net.Listen("unix", socket)
	if err != nil {
		return fail(err)
	}
	// The directory already keeps everyone else out; the socket's own mode
	// says so too, whatever the umask was.
	if err := os.Chmod(socket, 0o600); err != nil {
		l.Close()
		return fail(err)
	}
	k.wg.Add(1)
	go func() {
		defer k.wg.Done()
		if err := k.grpc.Serve(l); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			logrus.Errorf("kine's etcd API on %s stopped: %v", socket, err)
		}
	}()
	return k, "unix:" + socket, nil
}

// openKine connects to the database, sets up kine's table and starts kine's
// backend on it until ctx ends.
func openKine(ctx context.Context, wg *sync.WaitGroup, d *datastoreOptions) (kineserver.Backend, error) {
	_, backend, err := kinedrivers.New(ctx, wg, &kinedrivers.Config{
		Endpoint:         d.resolved,
		BackendTLSConfig: d.tls,
		ConnectionPoolConfig: generic.ConnectionPoolConfig{
			MaxIdle:     kineMaxIdleConns,
			MaxIdleTime: kineMaxIdleTime,
		},
		// No compaction of kine's own: the API server compacts, as it does etcd.
		CompactTimeout:   kineCompactTimeout,
		CompactMinRetain: kineCompactRetain,
		CompactBatchSize: kineBatchSize,
		PollBatchSize:    kinePollBatchSize,
		PollInterval:     kinePollInterval,
	})
	if err != nil {
		return nil, err
	}
	if err := backend.Start(ctx); err != nil {
		return nil, err
	}
	return backend, nil
}

// checkedCreates is kine's backend with every create checked. kine v0.17.5's
// Create, when its insert fails, reads the key, and if the key is not there it
// returns that read's error, nil, instead of the insert's: success, at the
// current revision. The API server then answers 201 Created for an object the
// database never stored. It happens to the first writes on connections a
// database restart dropped (TestSQLReplicas lost such a create). A create that
// happened is the key's newest row at the revision Create reports; one that
// did not is refused here, which the API server answers with an error.
type checkedCreates struct{ kineserver.Backend }

func (b checkedCreates) Create(ctx context.Context, key string, value []byte, lease int64) (int64, error) {
	rev, err := b.Backend.Create(ctx, key, value, lease)
	if err != nil {
		return rev, err
	}
	_, kv, err := b.Backend.Get(ctx, key, rev, true)
	if err != nil {
		return 0, fmt.Errorf("checking the create of %s at revision %d: %w", key, rev, err)
	}
	if kv == nil || kv.ModRevision != rev {
		return 0, fmt.Errorf("the database did not store %s (its insert failed)", key)
	}
	return rev, nil
}

// Close stops serving (gracefully for a while) and closes the database.
func (k *kine) Close() {
	if k.grpc != nil {
		timer := time.AfterFunc(kineStopTimeout, k.grpc.Stop)
		k.grpc.GracefulStop()
		timer.Stop()
	}
	k.cancel()
	k.wg.Wait()
}
