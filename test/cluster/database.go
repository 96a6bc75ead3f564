package cluster

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql" // MariaDB's sessions, as kine opens them
	"github.com/jackc/pgx/v5"
)

// ErrNoDatabase is wrapped by the errors of StartPostgres and StartMariaDB when
// the database server is not installed and cannot be installed here (not root,
// or apt-get failed): tests skip on it.
var ErrNoDatabase = errors.New("database server not available")

// installTimeout bounds an apt-get install of a database server.
const installTimeout = 20 * time.Minute

// Database is a real SQL database server (Debian's Postgres or MariaDB) on
// 127.0.0.1 and a free port, with its data in a fresh temporary directory,
// for a generated server's --datastore-endpoint (kine). It can be stopped and
// started again on the same data and port; Close stops it and removes its
// data.
type Database struct {
	Name     string // postgres or mariadbd
	Endpoint string // kine's endpoint of the database kine, which kine creates
	Addr     string // host:port
	Dir      string
	// Durable: the server was started with DatabaseOptions.Durable.
	Durable bool
	// BinDir holds the server's binaries (postgres: psql too).
	BinDir  string
	Process *Process
	// StopSignal shuts the server down cleanly: SIGINT for postgres (its
	// fast shutdown), SIGTERM for mariadbd, which ignores SIGINT.
	StopSignal os.Signal
	argv       []string
	starts     int
	// ping opens a session on the server: a port that takes connections
	// belongs to a server that may still refuse sessions while it starts
	// ("the database system is starting up"), and kine, given one then,
	// retries for minutes before it creates its database.
	ping func(ctx context.Context) error
}

// StartForTest starts a throwaway database server with start (the tests check
// behaviour, not durability on a machine crash), skips t when none is
// installed and none can be, and stops it and removes its data when t ends.
func StartForTest(t testing.TB, start func(DatabaseOptions) (*Database, error)) *Database {
	t.Helper()
	d, err := start(DatabaseOptions{})
	if errors.Is(err, ErrNoDatabase) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Error(err)
		}
	})
	return d
}

// Start starts the server (again, on the same data and port) and waits until
// it takes a session, each start logging to a file of its own in Dir.
func (d *Database) Start() error {
	d.starts++
	cmd := exec.Command(d.argv[0], d.argv[1:]...)
	cmd.Dir = d.Dir
	p, err := StartCommand(filepath.Join(d.Dir, fmt.Sprintf("%s-%d.log", d.Name, d.starts)), cmd)
	if err != nil {
		return err
	}
	d.Process = p
	if err := Poll(time.Minute, p.Done(), func() error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		return d.ping(ctx)
	}); err != nil {
		p.Kill()
		return fmt.Errorf("%s took no session on %s: %w\n%s", d.Name, d.Addr, err, p.Describe())
	}
	return nil
}

// Stop shuts the server down with StopSignal (killing it after 30s).
func (d *Database) Stop() error {
	if d.Process == nil {
		return nil
	}
	if _, err := d.Process.Signal(d.StopSignal, 30*time.Second); err != nil {
		return fmt.Errorf("stopping %s: %w", d.Name, err)
	}
	return nil
}

// Close stops the server and removes its data.
func (d *Database) Close() error {
	err := d.Stop()
	return errors.Join(err, os.RemoveAll(d.Dir))
}

// PostgresBinDir finds Debian's postgres binaries (/usr/lib/postgresql/*/bin),
// installing the package when they are missing and this process is root.
func PostgresBinDir() (string, error) {
	find := func() string {
		dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
		for _, d := range slices.Backward(dirs) {
			if _, err := os.Stat(filepath.Join(d, "postgres")); err == nil {
				return d
			}
		}
		return ""
	}
	if d := find(); d != "" {
		return d, nil
	}
	if err := aptInstall("postgresql", "/usr/lib/postgresql/*/bin/postgres"); err != nil {
		return "", err
	}
	if d := find(); d != "" {
		return d, nil
	}
	return "", errors.New("apt-get install postgresql succeeded, but there is no /usr/lib/postgresql/*/bin/postgres")
}

// MariaDBBinaries finds Debian's MariaDB server and its installer (mariadbd,
// mariadb-install-db, in $PATH, /usr/sbin or /usr/bin), installing the package
// when they are missing and this process is root.
func MariaDBBinaries() (server, install string, err error) {
	find := func(name string) string {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
		for _, dir := range []string{"/usr/sbin", "/usr/bin"} {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				return filepath.Join(dir, name)
			}
		}
		return ""
	}
	if server, install = find("mariadbd"), find("mariadb-install-db"); server != "" && install != "" {
		return server, install, nil
	}
	if err := aptInstall("mariadb-server", "mariadbd, mariadb-install-db"); err != nil {
		return "", "", err
	}
	if server, install = find("mariadbd"), find("mariadb-install-db"); server == "" || install == "" {
		return "", "", errors.New("apt-get install mariadb-server succeeded, but there is no mariadbd or mariadb-install-db")
	}
	return server, install, nil
}

// aptInstall installs Debian package pkg, whose files (what) are missing;
// an error wraps ErrNoDatabase.
func aptInstall(pkg, what string) error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("%w: %s is not installed (%s), and only root can apt-get install -y %s", ErrNoDatabase, pkg, what, pkg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "apt-get", "install", "-y", pkg)
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%w: %s is not installed, and apt-get install -y %s failed: %v\n%s", ErrNoDatabase, pkg, pkg, err, out)
	}
	return nil
}

// unprivileged is what runs a database server as the user name (postgres,
// mysql; neither runs as root) when this process is root, and makes dir that
// user's: its uid and gid, or nil when this process is not root.
func unprivileged(name, dir string) (*user.User, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("%w: running as root, the database needs an unprivileged user, and there is no user %s: %v", ErrNoDatabase, name, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return u, os.Chown(dir, uid, gid)
}

// run runs argv in dir, bounded, returning its output in the error.
func run(dir string, argv ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%v: %v\n%s", argv, err, out)
	}
	return nil
}

// DatabaseOptions are how StartPostgres and StartMariaDB set up their server.
type DatabaseOptions struct {
	// Durable makes every commit durable before it is acknowledged, as a
	// production database is set up and as etcd does by default: postgres
	// with fsync and synchronous_commit on, MariaDB with
	// innodb_flush_log_at_trx_commit=1 (its binary log is off, so sync_binlog
	// does not apply). Without it the server is throwaway, for tests: postgres
	// with fsync off, MariaDB flushing its log about once a second; a crash of
	// the machine (not of the server) can then lose acknowledged commits.
	Durable bool
}

// StartPostgres starts a fresh postgres cluster (initdb, trust
// authentication; fsync off unless o.Durable) on 127.0.0.1 and a free port,
// as the user postgres (it refuses to run as root) when this process is root.
// Its Endpoint is postgres://postgres@<addr>/kine?sslmode=disable.
func StartPostgres(o DatabaseOptions) (*Database, error) {
	bin, err := PostgresBinDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "apigen-postgres-")
	if err != nil {
		return nil, err
	}
	d, err := startPostgres(bin, dir, o)
	if err != nil {
		os.RemoveAll(dir)
	}
	return d, err
}

func startPostgres(bin, dir string, o DatabaseOptions) (*Database, error) {
	data := filepath.Join(dir, "data")
	u, err := unprivileged("postgres", dir)
	if err != nil {
		return nil, err
	}
	var asUser []string
	if u != nil {
		asUser = []string{"setpriv", "--reuid=" + u.Uid, "--regid=" + u.Gid, "--clear-groups", "--"}
	}
	argv := func(name string, args ...string) []string {
		return append(append(slices.Clone(asUser), filepath.Join(bin, name)), args...)
	}
	if err := run(dir, argv("initdb", "-D", data, "-U", "postgres", "--auth=trust", "--no-sync")...); err != nil {
		return nil, err
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	// fsync and synchronous_commit are postgres's defaults; they are given
	// here so that the command line says which settings ran.
	settings := []string{"-c", "fsync=off"}
	if o.Durable {
		settings = []string{"-c", "fsync=on", "-c", "synchronous_commit=on"}
	}
	d := &Database{
		Name: "postgres", Endpoint: "postgres://postgres@" + addr + "/kine?sslmode=disable", Addr: addr, Dir: dir, BinDir: bin,
		Durable: o.Durable, StopSignal: os.Interrupt,
		argv: argv("postgres", append([]string{"-D", data, "-h", "127.0.0.1", "-p", strconv.Itoa(port), "-k", dir}, settings...)...),
	}
	d.ping = func(ctx context.Context) error {
		c, err := pgx.Connect(ctx, "postgres://postgres@"+addr+"/postgres?sslmode=disable")
		if err != nil {
			return err
		}
		defer c.Close(context.Background())
		return c.Ping(ctx)
	}
	return d, d.Start()
}

// StartMariaDB starts a fresh MariaDB server on 127.0.0.1 and a free port
// (as the user mysql when this process is root, as Debian runs it). The
// throwaway server skips its grant tables, so kine connects as root without a
// password and creates its database kine itself. Unless o.Durable, it
// flushes its log about once a second rather than at each commit. Its
// Endpoint is mysql://root@tcp(<addr>)/kine.
func StartMariaDB(o DatabaseOptions) (*Database, error) {
	server, installer, err := MariaDBBinaries()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "apigen-mariadb-")
	if err != nil {
		return nil, err
	}
	d, err := startMariaDB(server, installer, dir, o)
	if err != nil {
		os.RemoveAll(dir)
	}
	return d, err
}

func startMariaDB(server, installer, dir string, o DatabaseOptions) (*Database, error) {
	data := filepath.Join(dir, "data")
	u, err := unprivileged("mysql", dir)
	if err != nil {
		return nil, err
	}
	var userArgs []string
	if u != nil {
		userArgs = []string{"--user=mysql"}
	}
	install := append([]string{installer, "--no-defaults", "--datadir=" + data, "--skip-test-db", "--auth-root-authentication-method=normal"}, userArgs...)
	if err := run(dir, install...); err != nil {
		return nil, err
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	// With --no-defaults and no --log-bin there is no binary log, so only
	// InnoDB's redo log decides whether a commit is on disk when it is
	// acknowledged: 1 writes and flushes it at each commit (the default),
	// 0 about once a second.
	flush := "--innodb-flush-log-at-trx-commit=0"
	if o.Durable {
		flush = "--innodb-flush-log-at-trx-commit=1"
	}
	d := &Database{
		Name: "mariadbd", Endpoint: "mysql://root@tcp(" + addr + ")/kine", Addr: addr, Dir: dir, BinDir: filepath.Dir(server),
		Durable: o.Durable, StopSignal: syscall.SIGTERM,
		argv: append([]string{server, "--no-defaults", "--datadir=" + data,
			"--bind-address=127.0.0.1", "--port=" + strconv.Itoa(port), "--socket=" + filepath.Join(dir, "mysqld.sock"),
			"--skip-grant-tables", flush}, userArgs...),
	}
	d.ping = func(ctx context.Context) error {
		db, err := sql.Open("mysql", "root@tcp("+addr+")/")
		if err != nil {
			return err
		}
		defer db.Close()
		return db.PingContext(ctx)
	}
	return d, d.Start()
}
