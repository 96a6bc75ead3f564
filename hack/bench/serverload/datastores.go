package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/apigen-dev/apigen/test/cluster"
)

// The -datastores comparison (issue 25): the same generated server
// (examples/wardle) on each storage it can use, one server process per
// storage, under the same client load:
//
//   - embedded etcd: local mode, etcd inside the server's process (the baseline);
//   - external etcd: cluster mode on one etcd member of test/cluster, the only
//     mode that takes --etcd-servers; it also needs kube-apiserver (for
//     delegated authentication, authorization and namespaces), and the load
//     generator reaches it as kube-apiserver's front proxy;
//   - sqlite, postgres, mariadb: local mode with --datastore-endpoint (from
//     the environment, as docs/guides/sql-storage.md advises) through kine in
//     the server's process; Postgres 15 and MariaDB are Debian's servers started by
//     test/cluster (MySQL itself is not in Debian; MariaDB speaks its
//     protocol through the same kine driver).
//
// Local-mode servers keep their --data-dir across rounds, so each round
// starts on a store that already holds the list namespaces; the databases
// run for the whole benchmark. The order of the servers rotates by one each
// round; ratios are medians of each round's ratio to embedded etcd. The CPU
// per operation counts the storage's process too (the etcd member; postgres
// and its connection processes; mariadbd), so that in-process and external
// storage compare.
//
// With -durable, every SQL database acknowledges a commit only once it is on
// disk, as both etcds do: postgres with fsync and synchronous_commit on,
// MariaDB with innodb_flush_log_at_trx_commit=1, SQLite with synchronous=FULL
// (sqliteDurableParams). Without it they run with the e2e tests' throwaway
// settings.
//
// With -replicas it is the replica comparison instead (replicaServers): one
// server on a Postgres database against two on another database of the same
// Postgres, the load split between the two.
const (
	dsEmbedded = "embedded-etcd"
	dsExternal = "external-etcd"
	dsSQLite   = "sqlite"
	dsPostgres = "postgres"
	dsMariaDB  = "mariadb"
)

// sqliteDurableParams are kine's sqlite.DefaultParams (v0.17.5) with
// synchronous=FULL instead of NORMAL: in WAL mode SQLite then syncs the WAL
// at every commit. Neither kine nor the generated server merges parameters:
// the server adds kine's defaults only to an endpoint without any, and kine
// passes the DSN to go-sqlite3 (or modernc.org/sqlite) as it is, so the rest
// of kine's defaults (WAL, the busy timeout, immediate transactions) must be
// given again here.
const sqliteDurableParams = "_journal_mode=WAL&_busy_timeout=30000&_synchronous=FULL&_txlock=immediate&_stmt_cache_size=20&cache=shared"

// wardleDatastoreEnv is where examples/wardle's server reads
// --datastore-endpoint from when the flag is not given.
const wardleDatastoreEnv = "WARDLE_DATASTORE_ENDPOINT"

// storageProc is a storage process outside the server, whose CPU time and
// memory the comparison counts. Its name must differ from every server's:
// CPU time is kept by process name.
type storageProc struct {
	name string
	pid  int
	tree bool
}

// datastoreServers starts the databases and returns a server per storage
// (those whose database is not installed and cannot be are left out, said
// in the log); closeAll stops the databases and removes their data. With
// durable, every database makes each commit durable.
func (b *bench) datastoreServers(bin string, durable bool) (servers []server, storage map[string]storageProc, closeAll func(), err error) {
	var dbs []*cluster.Database
	closeAll = func() {
		for _, d := range dbs {
			if err := d.Close(); err != nil {
				log.Print(err)
			}
		}
	}
	storage = map[string]storageProc{}
	local := func(name, endpoint string) server {
		dataDir := filepath.Join(b.dir, name+"-data")
		return server{Name: name, Bin: bin, launch: func(ctx context.Context, logName string) (*running, error) {
			return b.startLocal(ctx, name, bin, dataDir, endpoint, logName, storage[name])
		}}
	}
	servers = append(servers, local(dsEmbedded, ""))
	servers = append(servers, server{Name: dsExternal, Bin: bin, launch: func(ctx context.Context, logName string) (*running, error) {
		r, err := b.start(ctx, server{Name: dsExternal, Bin: bin}, logName)
		if err == nil {
			sp := storage[dsExternal]
			r.target.procs = append(r.target.procs, &proc{Name: sp.name, Pid: sp.pid})
		}
		return r, err
	}})
	storage[dsExternal] = storageProc{"etcd member", b.etcd.Members[0].Process.Pid(), false}
	sqlite := "sqlite://" + filepath.Join(b.dir, "sqlite", "state.db")
	if durable {
		sqlite += "?" + sqliteDurableParams
	}
	servers = append(servers, local(dsSQLite, sqlite))
	if err := os.MkdirAll(filepath.Join(b.dir, "sqlite"), 0o700); err != nil {
		return nil, nil, closeAll, err
	}
	for _, db := range []struct {
		name  string
		start func(cluster.DatabaseOptions) (*cluster.Database, error)
		tree  bool
	}{{dsPostgres, cluster.StartPostgres, true}, {dsMariaDB, cluster.StartMariaDB, false}} {
		log.Printf("starting %s ...", db.name)
		d, err := db.start(cluster.DatabaseOptions{Durable: durable})
		if errors.Is(err, cluster.ErrNoDatabase) {
			log.Printf("leaving %s out: %v", db.name, err)
			continue
		}
		if err != nil {
			return nil, nil, closeAll, fmt.Errorf("%s: %w", db.name, err)
		}
		dbs = append(dbs, d)
		storage[db.name] = storageProc{d.Name + " server", d.Process.Pid(), db.tree}
		servers = append(servers, local(db.name, d.Endpoint))
	}
	return servers, storage, closeAll, nil
}

// The -replicas comparison's sides: one server on a database, -replica-count
// servers on another database of the same database server reached directly,
// and as many on a third reached through kube-apiserver (routed.go).
func replicaSides(o *options) (one, several, routed string) {
	several = fmt.Sprintf("%s-%d", o.replicasDB, o.replicaCount)
	return o.replicasDB + "-1", several, several + "-kas"
}

// replicaServers starts one Postgres or MariaDB (-replicas-db; durable or not)
// and returns the two sides of the replica comparison: one server on its
// database kine, and -replica-count servers (replicas a, b, c..., each with
// its own --data-dir and port, started at once as a Deployment's replicas are)
// on its database kine2. The workload's workers spread over the replicas
// (worker w writes and reads through replica w mod n, so each object is
// written through one of them), as do the watchers of the watch fan-out; the
// paced watch creates through replica a only and watches on the others only:
// the latency of a write seen through another replica. The third side,
// -replica-count servers on its database kine3 in cluster mode, listening on
// ip, is reached through kube-apiserver, which picks a replica per request
// (startRouted); its paced watch splits the deliveries by replica. The CPU per
// operation counts every replica and the database (and kube-apiserver on the
// third side); the memory is replica a's.
func (b *bench) replicaServers(o *options, bin, ip string) (servers []server, storage map[string]storageProc, closeAll func(), err error) {
	closeAll = func() {}
	start := cluster.StartPostgres
	if o.replicasDB == "mariadb" {
		start = cluster.StartMariaDB
	}
	log.Printf("starting %s ...", o.replicasDB)
	d, err := start(cluster.DatabaseOptions{Durable: o.durable})
	if err != nil {
		return nil, nil, closeAll, fmt.Errorf("%s: %w", o.replicasDB, err)
	}
	closeAll = func() {
		if err := d.Close(); err != nil {
			log.Print(err)
		}
	}
	one, several, routed := replicaSides(o)
	db := storageProc{d.Name + " server", d.Process.Pid(), true}
	storage = map[string]storageProc{one: db, several: db, routed: db}
	second, third := otherDatabase(d.Endpoint, "kine2"), otherDatabase(d.Endpoint, "kine3")
	if second == d.Endpoint {
		return nil, nil, closeAll, fmt.Errorf("endpoint %s has no /kine to make a second database of", d.Endpoint)
	}
	servers = append(servers, server{Name: one, Bin: bin, launch: func(ctx context.Context, logName string) (*running, error) {
		return b.startLocal(ctx, one, bin, filepath.Join(b.dir, one+"-data"), d.Endpoint, logName, db)
	}})
	servers = append(servers, server{Name: several, Bin: bin, launch: func(ctx context.Context, logName string) (*running, error) {
		return b.startReplicas(ctx, several, bin, second, logName, db, o.replicaCount)
	}})
	var audited []string
	for r := 0; r <= o.rounds; r++ {
		audited = append(audited, roundNamespaces("", r)[2])
	}
	servers = append(servers, server{Name: routed, Bin: bin, launch: func(ctx context.Context, logName string) (*running, error) {
		return b.startRouted(ctx, routed, bin, third, ip, logName, db, o.replicaCount, audited)
	}})
	return servers, storage, closeAll, nil
}

// otherDatabase is endpoint with its database kine renamed name:
// postgres://...:port/kine?sslmode=disable, mysql://root@tcp(...)/kine.
func otherDatabase(endpoint, name string) string {
	if e, ok := strings.CutSuffix(endpoint, "/kine"); ok {
		return e + "/" + name
	}
	return strings.Replace(endpoint, "/kine?", "/"+name+"?", 1)
}

// startReplicas starts n servers in local mode on endpoint at once (each on
// its own --data-dir), and returns them as one side: a target whose replicas
// are the n, whose CPU is every server's and the storage's, and whose
// start-up is until all answer /readyz.
func (b *bench) startReplicas(ctx context.Context, name, bin, endpoint, logName string, sp storageProc, n int) (*running, error) {
	rs := make([]*running, n)
	errs := make([]error, n)
	begin := time.Now()
	var wg sync.WaitGroup
	for i := range n {
		r := string(rune('a' + i))
		wg.Go(func() {
			rs[i], errs[i] = b.startLocal(ctx, name+"-"+r, bin, filepath.Join(b.dir, name+"-"+r+"-data"), endpoint, logName+"-"+r, storageProc{})
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, r := range rs {
			if r != nil {
				r.stop()
			}
		}
		return nil, err
	}
	a := rs[0]
	t := &target{name: name, k: a.k, rc: a.rc, newClient: a.newClient}
	for _, r := range rs {
		t.replicas = append(t.replicas, r.target)
		t.procs = append(t.procs, r.procs[0])
	}
	t.procs = append(t.procs, &proc{Name: sp.name, Pid: sp.pid, Tree: sp.tree})
	return &running{target: t, proc: a.proc, startup: time.Since(begin), also: rs[1:]}, nil
}

// startLocal runs bin in local mode on dataDir (embedded etcd, or kine on
// endpoint, given in the environment), times it from exec to /readyz = 200
// through the kubeconfig it writes, and reaches it with that kubeconfig's
// client certificate (the admin, as system:masters is in cluster mode) over
// the same kind of connection as the cluster-mode servers.
func (b *bench) startLocal(ctx context.Context, name, bin, dataDir, endpoint, logName string, sp storageProc) (*running, error) {
	port, err := cluster.FreePort()
	if err != nil {
		return nil, err
	}
	kubeconfig := filepath.Join(b.dir, logName+".kubeconfig")
	cmd := exec.Command(bin, "--secure-port="+strconv.Itoa(port), "--data-dir="+dataDir, "--write-kubeconfig="+kubeconfig)
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, wardleDatastoreEnv+"=") {
			cmd.Env = append(cmd.Env, e)
		}
	}
	if endpoint != "" {
		cmd.Env = append(cmd.Env, wardleDatastoreEnv+"="+endpoint)
	}
	begin := time.Now()
	p, err := cluster.StartCommand(filepath.Join(b.dir, logName+".log"), cmd)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*running, error) {
		p.Stop(20 * time.Second)
		return nil, fmt.Errorf("%s: %w\n%s", name, err, p.Describe())
	}
	// etcd reads its whole key index before it serves: long at 10^6 objects.
	deadline := begin.Add(5 * time.Minute)
	var cfg *rest.Config
	var last error
	for {
		if cfg == nil {
			if c, err := clientcmd.BuildConfigFromFlags("", kubeconfig); err == nil {
				cfg = c
			} else {
				last = err
			}
		}
		if cfg != nil {
			if last = readyz(ctx, cfg); last == nil {
				break
			}
		}
		select {
		case <-p.Done():
			return fail(fmt.Errorf("exited before it was ready (last: %v)", last))
		case <-ctx.Done():
			return fail(ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fail(fmt.Errorf("not ready after 2m: %v", last))
		}
	}
	took := time.Since(begin)
	t, err := configTarget(name, name, cfg, flunderKind, p.Pid())
	if err != nil {
		return fail(err)
	}
	if sp.pid != 0 {
		t.procs = append(t.procs, &proc{Name: sp.name, Pid: sp.pid, Tree: sp.tree})
	}
	return &running{target: t, proc: p, startup: took}, nil
}

// readyz is nil once GET /readyz through cfg answers 200.
func readyz(ctx context.Context, cfg *rest.Config) error {
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	defer closeIdle(hc)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cfg.Host+"/readyz", nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("/readyz: %d %s", resp.StatusCode, strings.TrimSpace(string(body)))
	}
	return nil
}

// treeCPU is the CPU time of process pid and its live descendants, each
// with the children it has reaped (postgres's postmaster reaps the
// connection processes kine's pool closes), so that no CPU time drops out
// between two readings.
func treeCPU(pid int) time.Duration {
	total := time.Duration(0)
	for _, p := range processTree(pid) {
		total += processCPU(p) + childrenCPU(p)
	}
	return total
}

// childrenCPU is the CPU time (user+sys) of the children process pid has
// reaped, from /proc/<pid>/stat (cutime and cstime, in clock ticks).
func childrenCPU(pid int) time.Duration {
	f := procStat(pid)
	if len(f) < 15 {
		return 0
	}
	cutime, _ := strconv.ParseInt(f[13], 10, 64) // field 16 of proc(5)
	cstime, _ := strconv.ParseInt(f[14], 10, 64) // field 17
	return time.Duration(cutime+cstime) * 10 * time.Millisecond
}

// treeRSS is the proportional set size (Pss, so that shared memory counts
// once) of process pid and its live descendants, in bytes.
func treeRSS(pid int) int64 {
	var total int64
	for _, p := range processTree(pid) {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", p))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			if f := strings.Fields(line); len(f) == 3 && f[0] == "Pss:" {
				n, _ := strconv.ParseInt(f[1], 10, 64)
				total += n * 1024
			}
		}
	}
	return total
}

// processTree is pid and its live descendants, from /proc/*/stat.
func processTree(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		f := procStat(p)
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		children[ppid] = append(children[ppid], p)
	}
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

// runDatastores is the -datastores comparison: see the comment at the top.
func runDatastores(ctx context.Context, o *options, root, dir string) error {
	b := &bench{dir: dir}
	var ip string
	if o.replicas {
		var err error
		if ip, err = b.routedControlPlane(); err != nil {
			return err
		}
	}
	w, stop, err := b.buildAndStart(o, root, false)
	if err != nil {
		return err
	}
	defer stop()
	bin := w.wardle
	start := func() ([]server, map[string]storageProc, func(), error) { return b.datastoreServers(bin, o.durable) }
	if o.replicas {
		if err := b.registerRouted(ctx); err != nil {
			return err
		}
		start = func() ([]server, map[string]storageProc, func(), error) { return b.replicaServers(o, bin, ip) }
	}
	servers, storage, closeDBs, err := start()
	defer closeDBs()
	if err != nil {
		return err
	}
	if o.only != "" && !o.replicas {
		var keep []server
		for _, s := range servers {
			if s.Name == o.only || s.Name == dsEmbedded {
				keep = append(keep, s)
			}
		}
		if len(keep) < 2 {
			return fmt.Errorf("-only %q: want one of %v", o.only, names(servers))
		}
		servers = keep
	}

	if err := b.prepare(ctx, o, servers); err != nil {
		return err
	}

	var results []*runResult
	ops := operations(o.config)
	for round := 1; round <= o.rounds; round++ {
		var order []server
		for i := range servers {
			order = append(order, servers[(i+round-1)%len(servers)])
		}
		rs, err := b.round(ctx, o, order, ops, round)
		if err != nil {
			return fmt.Errorf("round %d: %w", round, err)
		}
		for _, rr := range rs {
			if sp, ok := storage[rr.Server]; ok {
				rr.StorageMemory = treeRSS(sp.pid)
			}
			log.Printf("round %d/%d %s: %s", round, o.rounds, rr.Server, brief(rr))
		}
		results = append(results, rs...)
	}
	summary := reportDatastores(o, servers, storage, results)
	fmt.Print(summary)
	return writeResults(o, summary, struct{ Rounds []*runResult }{results})
}

// reportDatastores is the -datastores comparison's summary: each
// operation's median throughput and p99 per storage with its ratio to the
// first server (embedded etcd; with -replicas, one server on Postgres), the
// median of the per-round ratios, then start-up and memory.
func reportDatastores(o *options, servers []server, storage map[string]storageProc, results []*runResult) string {
	var sb strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&sb, format, a...) }
	t := newTable(names(servers), results)
	base := servers[0].Name
	settings := "the SQL databases with the e2e tests' throwaway settings (postgres fsync=off, MariaDB innodb_flush_log_at_trx_commit=0, SQLite synchronous=NORMAL)"
	if o.durable {
		settings = "every SQL database durable at each commit (postgres fsync=on and synchronous_commit=on, MariaDB innodb_flush_log_at_trx_commit=1, SQLite synchronous=FULL)"
	}
	if o.replicas {
		one, several, routed := replicaSides(o)
		p("The generated server (examples/wardle) on %s: one server (%s) against %d replicas on one database reached directly (%s; each worker and watcher on replica w mod %d, the paced watch creating through replica a and watching on the others) and %d replicas on another database in cluster mode reached through kube-apiserver (%s; listed in the Service's EndpointSlices once ready, kube-apiserver with --enable-aggregator-routing=true picking a replica per request, its CPU counted), %d rounds, %s, %s; %s.\n",
			o.replicasDB, one, o.replicaCount, several, o.replicaCount, o.replicaCount, routed, len(t.rounds), machine(), time.Now().UTC().Format("2006-01-02T15:04Z"), settings)
	} else {
		p("The generated server (examples/wardle) on each storage, one process each, %d rounds, %s, %s; %s.\n",
			len(t.rounds), machine(), time.Now().UTC().Format("2006-01-02T15:04Z"), settings)
	}
	workload(p, o, results)
	p("Medians over the rounds; (×r) is the median of each round's ratio to %s (throughput: above 1 is faster; p99 and CPU: above 1 is slower or costlier). CPU/op counts the storage's own process where it is outside the server.\n\n", base)
	p("| operation |")
	for _, s := range t.servers {
		p(" %s |", s)
	}
	p("\n|---|%s\n", strings.Repeat("---|", len(t.servers)))
	cell := func(op, s string, f func(*phaseResult) float64, format func(float64) string) string {
		v := format(t.med(op, s, f))
		if s != base {
			v += fmt.Sprintf(" (×%.2f)", t.ratio(op, s, base, f))
		}
		if e := t.errors(op, s); e > 0 {
			v += fmt.Sprintf(", %d errors", e)
		}
		return v
	}
	for _, op := range t.ops {
		rows := []struct {
			what   string
			f      func(*phaseResult) float64
			format func(float64) string
		}{
			{"ops/s", tput, func(x float64) string { return fmt.Sprintf("%.0f", x) }},
			{"p99", p99, ms},
			{"CPU/op", cpu, ms},
		}
		if t.paced(op) {
			// The latency compares, its median too (kine's poll spreads a
			// cross-replica delivery over a second).
			rows = append([]struct {
				what   string
				f      func(*phaseResult) float64
				format func(float64) string
			}{{"p50", p50, ms}}, rows[1:]...)
		}
		for _, r := range rows {
			p("| %s %s |", op, r.what)
			for _, s := range t.servers {
				p(" %s |", cell(op, s, r.f, r.format))
			}
			p("\n")
		}
	}
	p("\n| measure |")
	for _, s := range t.servers {
		p(" %s |", s)
	}
	p("\n|---|%s\n", strings.Repeat("---|", len(t.servers)))
	row := func(what string, f func(r *runResult) float64, format func(float64) string) {
		p("| %s |", what)
		for _, s := range t.servers {
			v := format(t.runMed(s, f))
			if s != base {
				if r := t.runRatio(s, base, f); r > 0 {
					v += fmt.Sprintf(" (×%.2f)", r)
				}
			}
			p(" %s |", v)
		}
		p("\n")
	}
	row("start-up to /readyz (exec → 200)", func(r *runResult) float64 { return r.Startup.Seconds() }, ms)
	which := "server"
	if o.replicas {
		_, several, routed := replicaSides(o)
		which = "server (" + several + " and " + routed + ": replica a)"
	}
	row(which+" RSS (VmRSS) after the round", func(r *runResult) float64 { return float64(r.Memory.RSS) }, func(x float64) string { return mib(int64(x)) })
	row(which+" peak RSS (VmHWM)", func(r *runResult) float64 { return float64(r.Memory.HWM) }, func(x float64) string { return mib(int64(x)) })
	p("| storage process (Pss after the round) |")
	for _, s := range t.servers {
		if sp, ok := storage[s]; ok {
			p(" %s: %s |", sp.name, mib(int64(t.runMed(s, func(r *runResult) float64 { return float64(r.StorageMemory) }))))
		} else {
			p(" in the server |")
		}
	}
	p("\n\n")
	if o.replicas {
		byReplica(p, o, t)
	}
	t.perRound(p, true)
	return sb.String()
}

// byReplica is the paced watch of the -replicas comparison by replica: through
// kube-apiserver, the deliveries whose watch another replica served than the
// create, and those whose watch the same replica served; directly, every
// delivery is across replicas.
func byReplica(p func(string, ...any), o *options, t *table) {
	_, several, routed := replicaSides(o)
	var op string
	for _, name := range t.ops {
		if t.paced(name) {
			op = name
		}
	}
	if op == "" {
		return
	}
	p("The paced watch (%s) by replica: through kube-apiserver, each create and watch names itself with the Audit-ID header and the replica whose audit log holds it served it; a delivery is cross-replica when another replica served the watch than the create. Latency from the create's send to the watcher's decoded event; medians over the rounds.\n\n", op)
	p("| deliveries | count | p50 | p99 |\n|---|---|---|---|\n")
	split := func(what string, get func(*phaseResult) *latencySplit) {
		f := func(g func(*latencySplit) float64) func(*phaseResult) float64 {
			return func(r *phaseResult) float64 {
				if s := get(r); s != nil {
					return g(s)
				}
				return 0
			}
		}
		p("| %s | %.0f | %s | %s |\n", what, t.med(op, routed, f(func(s *latencySplit) float64 { return float64(s.N) })),
			ms(t.med(op, routed, f(func(s *latencySplit) float64 { return s.P50.Seconds() }))),
			ms(t.med(op, routed, f(func(s *latencySplit) float64 { return s.P99.Seconds() }))))
	}
	split(routed+", cross-replica", func(r *phaseResult) *latencySplit { return r.Cross })
	split(routed+", same-replica", func(r *phaseResult) *latencySplit { return r.Same })
	count := func(r *phaseResult) float64 { return float64(r.OK) }
	p("| %s, every delivery | %.0f | %s | %s |\n", routed, t.med(op, routed, count), ms(t.med(op, routed, p50)), ms(t.med(op, routed, p99)))
	p("| %s (direct: creates through replica a, watches on the others), every delivery cross-replica | %.0f | %s | %s |\n",
		several, t.med(op, several, count), ms(t.med(op, several, p50)), ms(t.med(op, several, p99)))
	if n := t.med(op, routed, func(r *phaseResult) float64 { return float64(r.Unattributed) }); n > 0 {
		p("\n%.0f deliveries (median) whose requests no audit log named are in neither split.\n", n)
	}
	p("\n")
}
