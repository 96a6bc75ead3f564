//go:build !apigen_etcdonly

package server

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	kineserver "github.com/k3s-io/kine/pkg/server"
	"github.com/sirupsen/logrus"
)

// Cross-replica wake-ups. kine learns of rows other processes insert by
// polling the database (kinePollInterval); its own writes wake its poll loop
// at once. Replicas on one database would see each other's writes up to a
// poll interval late: a controller watching through one replica and writing
// through another would work on stale objects for up to a second, on every
// write. Each replica therefore announces its writes to the others, and a
// replica that hears of a revision it has not seen lists one key through kine,
// which reads the database's current revision and wakes kine's poll loop when
// it is ahead (kine's List does so for any list). kine's poll stays as it was,
// the backstop for an announcement lost (a connection that broke, a replica
// that started after the write).
//
//   - Postgres: NOTIFY on a channel every replica LISTENs to; the payload is
//     the revision. No query while idle: a listening connection waits.
//   - MySQL and MariaDB, which have no LISTEN: each replica keeps one query
//     waiting, for up to kineWakeSleep, on a connection of its own (a
//     GET_LOCK of a lock another connection of its own holds); a writer ends
//     the others' waiting queries with KILL QUERY, which returns the wait at
//     once, all of them at once, each on a connection of its own. It finds
//     them in the process list (its own user's sessions, which it may always
//     see and end), read beside the announcements rather than before them: a
//     write waits for no read of the process list, and a replica found by a
//     read is woken for the writes announced before it. A KILL that comes
//     between two waits finds no query and is lost, so the woken replica
//     reads the revision at once and again when the process list shows its
//     next wait running (a KILL from then on ends it): a write whose KILL was
//     lost committed before that. Idle, a replica issues one query per
//     kineWakeSleep.
//
// A replica is not ready (its readyz check kineWakeReadyCheck fails) until the
// other replicas' writes wake it: on Postgres once its LISTEN is in place, on
// MySQL once its waiting query has run for kineWakeReadyAfter (every writer's
// process list read from then on shows it); in both cases once kine's poll
// loop reads when woken (kineWakePollWarm), and once it has read the
// database's revision after all that, for the writes made before. Until then
// another replica's write would reach its watches only at kine's poll, up to a
// second late. Only that first establishment holds readiness: a
// wake-up connection that breaks later is connected again meanwhile, and the
// replica still serves correct data (only later, at kine's poll). Dropping
// out of the Service then would move its load onto the others, all of which
// lose their wake-up connections at once when the database restarts.

const (
	// kineWakeChannel is the Postgres channel writes are announced on (a
	// channel belongs to its database, as kine's table does).
	kineWakeChannel = "kine"
	// kineWakeSleep is how long a MySQL waiting query waits before it is
	// issued again.
	kineWakeSleep = 30 * time.Second
	// kineWakePeersTTL is how long a MySQL writer reuses the process list it
	// read: a replica that starts meanwhile hears of writes by kine's poll.
	kineWakePeersTTL = time.Second
	// kineWakeRetry is how long a broken wake-up connection waits before it
	// connects again.
	kineWakeRetry = time.Second
	// kineWakeRecheck is how often a woken MySQL replica looks for its next
	// wait in the process list, at most kineWakeRechecks times, before it
	// reads the revision once more (a KILL that came between two waits is
	// lost; the write it announced has committed by the time the next wait
	// runs).
	kineWakeRecheck  = 5 * time.Millisecond
	kineWakeRechecks = 40
	// kineWakeKills is how many KILLs of one waiting query may be under way.
	kineWakeKills = 2
	// kineWakeReadyAfter is how long a MySQL replica's waiting query must have
	// run before the replica is ready: a writer's cached process list is at
	// most kineWakePeersTTL old, from a read that began a moment before it was
	// cached.
	kineWakeReadyAfter = kineWakePeersTTL + 100*time.Millisecond
	// kineWakePollWarm is how long after its poll loop starts kine reads the
	// database when woken. kine v0.17.5's loop spends its first tick, or the
	// first wake-up for a revision it has not read if that comes sooner, on
	// preparing its statement, and then waits for the next: a write it was
	// woken for meanwhile reaches the watches at the tick, up to a poll
	// interval late. By its first tick, and the preparation after it, every
	// wake-up is read at once.
	kineWakePollWarm = kinePollInterval + 250*time.Millisecond
)

// kineWakeReadyCheck is the readyz check that holds a replica on SQL storage
// out of its Service until the other replicas' writes wake it.
const kineWakeReadyCheck = "datastore-wakeups"

// kineWakeQueryPrefix begins each MySQL waiting query, and identifies it in
// the process list: GET_LOCK of the lock named kineWakeLock and the connection
// id of the connection that holds it, which waits until the timeout or a KILL.
// Not SLEEP: with three replicas on MariaDB 10.11, KILLs of a SLEEP took 1.4
// to 3.4 s to return, now and then, and ended the sleep only then (the KILL
// retries the killed thread's lock, which all sleeps share, for up to two
// seconds); a KILL of a lock wait returns at once.
const (
	kineWakeLock        = "kine_wake_"
	kineWakeQueryPrefix = "SELECT GET_LOCK('" + kineWakeLock
)

// kineWakeLockName is the lock the connection holder holds.
func kineWakeLockName(holder int64) string {
	return fmt.Sprintf("%s%d", kineWakeLock, holder)
}

// kineWakeQuery is the waiting query of a replica whose lock the connection
// holder holds.
func kineWakeQuery(holder int64) string {
	return fmt.Sprintf("SELECT GET_LOCK('%s', %d) AS kine_wake", kineWakeLockName(holder), int(kineWakeSleep/time.Second))
}

// wakeups announces this replica's writes and wakes kine's poll loop for the
// others'.
type wakeups struct {
	backend kineserver.Backend
	// seen is the highest revision this replica's poll loop has been told
	// of: written here, or read by a wake-up list.
	seen atomic.Int64
	// written is the highest revision written here; announced is the highest
	// announced.
	written, announced atomic.Int64
	announce           chan struct{} // a write to announce
	wake               chan struct{} // another replica's write heard
	// catchUp asks wakeLoop to mark the wake-ups established once its next
	// read of the revision succeeds: the listener set it once wake-ups reach
	// this replica.
	catchUp atomic.Bool
	// established: wake-ups reached this replica, and it has read the revision
	// since. It stays so (see the header comment).
	established atomic.Bool
	// warm is when kine's poll loop reads at once when woken (kineWakePollWarm).
	warm time.Time
}

// startWakeups starts announcing the writes through the returned backend (b
// wrapped) and listening for other replicas' on the database at endpoint, until
// ctx ends. ready returns nil once the listening is established (see the
// header comment). Endpoints other than postgres and mysql (sqlite: one server) get b
// back as it is, and a nil ready.
func startWakeups(ctx context.Context, wg *sync.WaitGroup, d *datastoreOptions, b kineserver.Backend) (_ kineserver.Backend, ready func() error, _ error) {
	scheme, rest, _ := strings.Cut(d.resolved, "://")
	var announce func(context.Context, int64) error
	var listen func(context.Context, *wakeups)
	switch scheme {
	case "postgres", "postgresql":
		cfg, err := kinePostgresConfig(rest, d)
		if err != nil {
			return nil, nil, err
		}
		p := &pgWakeups{cfg: cfg}
		announce, listen = p.announce, p.listen
		context.AfterFunc(ctx, p.close)
	case "mysql":
		cfg, err := kineMySQLConfig(rest, d)
		if err != nil {
			return nil, nil, err
		}
		connector, err := mysql.NewConnector(cfg)
		if err != nil {
			return nil, nil, err
		}
		// The waiting connection has a pool of its own that keeps none idle: one
		// that failed is closed, never handed to the announcer, whose statements
		// the other replicas' KILL QUERY would end.
		m := &mysqlWakeups{db: sql.OpenDB(connector), waitDB: sql.OpenDB(connector), peers: map[int64]bool{}, killing: map[int64]int{}, refresh: make(chan struct{}, 1)}
		// KILLs of the other replicas' queries at once: connections are kept for the next.
		m.db.SetMaxIdleConns(4)
		m.waitDB.SetMaxIdleConns(0)
		announce, listen = m.announce, m.listen
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.peersLoop(ctx)
		}()
		context.AfterFunc(ctx, func() { m.db.Close(); m.waitDB.Close() })
	default:
		return b, nil, nil
	}
	w := &wakeups{backend: b, announce: make(chan struct{}, 1), wake: make(chan struct{}, 1), warm: startPolling(ctx, b)}
	wg.Add(3)
	go func() {
		defer wg.Done()
		w.announceLoop(ctx, announce)
	}()
	go func() {
		defer wg.Done()
		listen(ctx, w)
	}()
	go func() {
		defer wg.Done()
		w.wakeLoop(ctx)
	}()
	return announcingBackend{b, w}, w.ready, nil
}

// ready is nil once the other replicas' writes wake this replica.
func (w *wakeups) ready() error {
	if w.established.Load() {
		return nil
	}
	return errors.New("the other replicas' writes do not wake this replica yet " +
		"(they would reach its watches only at its next poll of the database)")
}

// reached records that wake-ups reach this replica from now on: the revision
// is read once more, and, once kine's poll loop is warm, once again; the
// wake-ups are established when that read succeeds (a write made before is
// seen by it, and kine's poll loop reads it at once).
func (w *wakeups) reached() {
	if !w.established.Load() {
		if wait := time.Until(w.warm); wait > 0 {
			time.AfterFunc(wait, w.reached)
		} else {
			w.catchUp.Store(true)
		}
	}
	w.heard(0)
}

// startPolling makes sure kine's poll loop runs (kine starts it with the first
// watch, which its lease expiry opens as it starts) and returns when it is
// warm (kineWakePollWarm).
func startPolling(ctx context.Context, b kineserver.Backend) time.Time {
	wctx, cancel := context.WithCancel(ctx)
	b.Watch(wctx, 0)
	cancel()
	return time.Now().Add(kineWakePollWarm)
}

// wrote records a write of this replica at rev: its poll loop knows of it,
// the others are to hear of it.
func (w *wakeups) wrote(rev int64) {
	storeMax(&w.seen, rev)
	storeMax(&w.written, rev)
	select {
	case w.announce <- struct{}{}:
	default:
	}
}

// heard records that another replica wrote at rev (0: some revision, not
// said), and wakes the poll loop unless it knows of rev already.
func (w *wakeups) heard(rev int64) {
	if rev != 0 && rev <= w.seen.Load() {
		return
	}
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// announceLoop announces the newest revision written here whenever there is
// one not announced; writes made while an announcement is on its way are
// announced together, by the next.
func (w *wakeups) announceLoop(ctx context.Context, announce func(context.Context, int64) error) {
	failing := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.announce:
		}
		rev := w.written.Load()
		if rev <= w.announced.Load() {
			continue
		}
		if err := announce(ctx, rev); err != nil {
			if ctx.Err() != nil {
				return
			}
			if !failing {
				logrus.Warnf("Announcing a write to the other replicas failed (they see it at their next poll of the database): %v", err)
			}
			failing = true
			continue
		}
		if failing {
			logrus.Warnf("Announcing writes to the other replicas works again")
		}
		failing = false
		storeMax(&w.announced, rev)
	}
}

// wakeLoop lists one key through kine for each wake-up (wake-ups that come
// meanwhile are answered by the next list): kine reads the database's current
// revision with it and wakes its poll loop when that is ahead of what it read.
func (w *wakeups) wakeLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.wake:
		}
		// Taken before the read: a read begun before the wake-ups reached this
		// replica does not establish them.
		catchUp := w.catchUp.Swap(false)
		rev, _, err := w.backend.List(ctx, "compact_rev_key", "", 1, 0, true)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			logrus.Debugf("Reading the database's revision after another replica's write: %v", err)
			if catchUp {
				// Readiness waits for this read: it is tried again.
				if !sleepFor(ctx, kineWakeRetry) {
					return
				}
				w.reached()
			}
			continue
		}
		storeMax(&w.seen, rev)
		if catchUp {
			w.established.Store(true)
		}
	}
}

func storeMax(v *atomic.Int64, n int64) {
	for {
		old := v.Load()
		if n <= old || v.CompareAndSwap(old, n) {
			return
		}
	}
}

// sleepFor waits d or until ctx ends, and reports whether ctx is still going.
func sleepFor(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// announcingBackend is kine's backend with each write that happened announced.
type announcingBackend struct {
	kineserver.Backend
	w *wakeups
}

func (b announcingBackend) Create(ctx context.Context, key string, value []byte, lease int64) (int64, error) {
	rev, err := b.Backend.Create(ctx, key, value, lease)
	if err == nil {
		b.w.wrote(rev)
	}
	return rev, err
}

func (b announcingBackend) Update(ctx context.Context, key string, value []byte, revision, lease int64) (int64, *kineserver.KeyValue, bool, error) {
	rev, kv, ok, err := b.Backend.Update(ctx, key, value, revision, lease)
	if err == nil && ok {
		b.w.wrote(rev)
	}
	return rev, kv, ok, err
}

func (b announcingBackend) Delete(ctx context.Context, key string, revision int64) (int64, *kineserver.KeyValue, bool, error) {
	rev, kv, ok, err := b.Backend.Delete(ctx, key, revision)
	if err == nil && ok {
		b.w.wrote(rev)
	}
	return rev, kv, ok, err
}

// kinePostgresConfig is the connection kine's postgres driver makes for the
// endpoint's address part rest: the database kubernetes unless the path names
// one (lower-cased, as kine does), the TLS files as its ssl parameters.
func kinePostgresConfig(rest string, d *datastoreOptions) (*pgx.ConnConfig, error) {
	u, err := url.Parse("postgres://" + rest)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // never the URL: it may hold a password
		}
		return nil, err
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/kubernetes"
	}
	u.Path = strings.ToLower(u.Path)
	q := u.Query()
	tlsParams := false
	for param, file := range map[string]string{"sslcert": d.tls.CertFile, "sslkey": d.tls.KeyFile, "sslrootcert": d.tls.CAFile} {
		if file != "" && !q.Has(param) {
			q.Set(param, file)
			tlsParams = true
		}
	}
	if tlsParams && !q.Has("sslmode") {
		q.Set("sslmode", "verify-full")
	}
	u.RawQuery = q.Encode()
	return pgx.ParseConfig(u.String())
}

// pgWakeups announces with NOTIFY and listens with LISTEN.
type pgWakeups struct {
	cfg  *pgx.ConnConfig
	mu   sync.Mutex
	conn *pgx.Conn // the announcing connection, made when first needed
}

func (p *pgWakeups) announce(ctx context.Context, rev int64) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conn == nil {
		conn, err := pgx.ConnectConfig(ctx, p.cfg)
		if err != nil {
			return err
		}
		p.conn = conn
	}
	if _, err := p.conn.Exec(ctx, "SELECT pg_notify($1, $2)", kineWakeChannel, strconv.FormatInt(rev, 10)); err != nil {
		closePG(p.conn)
		p.conn = nil
		return err
	}
	return nil
}

func (p *pgWakeups) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conn != nil {
		closePG(p.conn)
		p.conn = nil
	}
}

// closePG closes conn, waiting for the database's side at most kineWakeRetry
// (a connection that broke may never answer).
func closePG(conn *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), kineWakeRetry)
	defer cancel()
	conn.Close(ctx)
}

// listen listens on kineWakeChannel until ctx ends, connecting again when the
// connection breaks; after each (re)connection it wakes kine's poll loop once
// for what was written meanwhile.
func (p *pgWakeups) listen(ctx context.Context, w *wakeups) {
	for failing := false; ; {
		err := p.listenOnce(ctx, w)
		if ctx.Err() != nil {
			return
		}
		if !failing {
			logrus.Warnf("Listening for the other replicas' writes failed (kine's poll of the database finds them meanwhile): %v", err)
		}
		failing = true
		if !sleepFor(ctx, kineWakeRetry) {
			return
		}
	}
}

func (p *pgWakeups) listenOnce(ctx context.Context, w *wakeups) error {
	conn, err := pgx.ConnectConfig(ctx, p.cfg)
	if err != nil {
		return err
	}
	defer closePG(conn)
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{kineWakeChannel}.Sanitize()); err != nil {
		return err
	}
	// LISTEN has committed: every NOTIFY from now on reaches this connection.
	w.reached()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		rev, err := strconv.ParseInt(n.Payload, 10, 64)
		if err != nil {
			rev = 0
		}
		w.heard(rev)
	}
}

// kineMySQLConfig is the connection kine's mysql driver makes for the
// endpoint's address part rest: the database kubernetes unless the DSN names
// one, the TLS configuration kine registered under its name.
func kineMySQLConfig(rest string, d *datastoreOptions) (*mysql.Config, error) {
	cfg, err := mysql.ParseDSN(rest)
	if err != nil {
		return nil, err
	}
	if d.tls.CAFile != "" || d.tls.CertFile != "" {
		cfg.TLSConfig = "kine"
	}
	if cfg.DBName == "" {
		cfg.DBName = "kubernetes"
	}
	return cfg, nil
}

// mysqlWakeups announces by ending the other replicas' waiting queries.
type mysqlWakeups struct {
	db, waitDB *sql.DB
	// waiter is the connection id of this replica's waiting query.
	waiter atomic.Int64
	// refresh asks peersLoop to read the process list.
	refresh chan struct{}

	mu sync.Mutex
	// peers are the connection ids of the others' waiting queries, as the
	// process list showed them at read or before: a connection between two
	// sleeps shows no query, and stays a peer until a KILL finds it gone.
	peers map[int64]bool
	read  time.Time
	// killing counts each peer's KILLs under way.
	killing map[int64]int
	// establishing starts establish once, with the first waiting query.
	establishing sync.Once
}

// announce ends the known peers' waiting queries at once and has the process
// list read beside it when the last read is older than kineWakePeersTTL.
func (m *mysqlWakeups) announce(ctx context.Context, _ int64) error {
	m.mu.Lock()
	ids := make([]int64, 0, len(m.peers))
	for id := range m.peers {
		ids = append(ids, id)
	}
	stale := time.Since(m.read) > kineWakePeersTTL
	m.mu.Unlock()
	if stale {
		select {
		case m.refresh <- struct{}{}:
		default:
		}
	}
	m.kill(ctx, ids)
	return nil
}

// kill ends the waiting queries of ids, each on a connection of its own,
// without waiting for them (a KILL that is slow to return delays neither the
// next announcement nor the other replicas), and forgets those whose
// connection is gone. A peer has at most kineWakeKills KILLs under way; an
// announcement that finds it so leaves it to them.
func (m *mysqlWakeups) kill(ctx context.Context, ids []int64) {
	for _, id := range ids {
		m.mu.Lock()
		busy := m.killing[id] >= kineWakeKills
		if !busy {
			m.killing[id]++
		}
		m.mu.Unlock()
		if busy {
			continue
		}
		go func() {
			_, err := m.db.ExecContext(ctx, fmt.Sprintf("KILL QUERY %d", id))
			var merr *mysql.MySQLError
			m.mu.Lock()
			m.killing[id]--
			if m.killing[id] == 0 {
				delete(m.killing, id)
			}
			if errors.As(err, &merr) && merr.Number == 1094 { // unknown thread: that replica is gone
				delete(m.peers, id)
				err = nil
			}
			m.mu.Unlock()
			if err != nil && ctx.Err() == nil {
				logrus.Debugf("Waking another replica: %v", err)
			}
		}()
	}
}

// peersLoop reads the process list when announce asks, and ends the waiting
// queries of peers it finds for the first time: they started after the last
// read, and may have missed the write being announced.
func (m *mysqlWakeups) peersLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-m.refresh:
		}
		found, err := m.waiting(ctx, 0)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			logrus.Debugf("Reading the other replicas' waiting queries: %v", err)
			continue
		}
		var fresh []int64
		m.mu.Lock()
		for _, id := range found {
			if id != m.waiter.Load() && !m.peers[id] {
				m.peers[id] = true
				fresh = append(fresh, id)
			}
		}
		m.read = time.Now()
		m.mu.Unlock()
		m.kill(ctx, fresh)
	}
}

// waiting are the connection ids the process list shows running the waiting
// query: all of them, or only id when it is not 0.
func (m *mysqlWakeups) waiting(ctx context.Context, id int64) ([]int64, error) {
	q := "SELECT ID FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND INFO LIKE CONCAT(?, '%')"
	args := []any{kineWakeQueryPrefix}
	if id != 0 {
		q += " AND ID = ?"
		args = append(args, id)
	}
	rows, err := m.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// listen keeps one waiting query on a connection of its own until ctx ends;
// a sleep that another replica ended is a wake-up.
func (m *mysqlWakeups) listen(ctx context.Context, w *wakeups) {
	for failing := false; ; {
		err := m.listenOnce(ctx, w)
		if ctx.Err() != nil {
			return
		}
		if !failing {
			logrus.Warnf("Waiting for the other replicas' writes failed (kine's poll of the database finds them meanwhile): %v", err)
		}
		failing = true
		if !sleepFor(ctx, kineWakeRetry) {
			return
		}
	}
}

func (m *mysqlWakeups) listenOnce(ctx context.Context, w *wakeups) error {
	// The holder takes the lock the waiting query waits for, and keeps it.
	holder, err := m.waitDB.Conn(ctx)
	if err != nil {
		return err
	}
	defer holder.Close()
	var hid int64
	if err := holder.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&hid); err != nil {
		return err
	}
	var locked sql.NullInt64
	if err := holder.QueryRowContext(ctx, "SELECT GET_LOCK(?, 0)", kineWakeLockName(hid)).Scan(&locked); err != nil {
		return err
	}
	if locked.Int64 != 1 {
		return fmt.Errorf("lock %s is taken", kineWakeLockName(hid))
	}
	conn, err := m.waitDB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var id int64
	if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		return err
	}
	m.waiter.Store(id)
	w.heard(0)
	m.establishing.Do(func() { go m.establish(ctx, w) })
	query := kineWakeQuery(hid)
	for {
		var got sql.NullInt64
		err := conn.QueryRowContext(ctx, query).Scan(&got)
		var merr *mysql.MySQLError
		switch {
		case err == nil && got.Valid && got.Int64 == 0:
			// Waited its time. The holder pings, so that the server's wait_timeout
			// (8 hours by default) never ends its idle connection and frees the lock.
			if err := holder.PingContext(ctx); err != nil {
				return err
			}
		case err == nil && got.Valid:
			// The lock was free: the holder's connection is gone.
			return fmt.Errorf("the connection holding lock %s is gone", kineWakeLockName(hid))
		case err == nil, errors.As(err, &merr) && merr.Number == 1317: // query interrupted (NULL: killed)
			w.heard(0)
			go m.recheck(ctx, w, id)
		default:
			return err
		}
	}
}

// recheck waits until the process list shows the waiting query of
// connection id running (a KILL from then on ends it) and reads the revision
// once more, for the writes whose KILL came between two sleeps.
func (m *mysqlWakeups) recheck(ctx context.Context, w *wakeups, id int64) {
	for range kineWakeRechecks {
		if !sleepFor(ctx, kineWakeRecheck) {
			return
		}
		if ids, err := m.waiting(ctx, id); err != nil || len(ids) > 0 {
			break
		}
	}
	w.heard(0)
}

// establish waits until the process list shows this replica's waiting query
// running and then kineWakeReadyAfter more, and records that wake-ups reach
// this replica: a writer's process list read from then on shows its waiting
// connection, and a writer keeps a connection it found until a KILL finds it
// gone. A new waiting connection meanwhile (the first broke) starts it over.
func (m *mysqlWakeups) establish(ctx context.Context, w *wakeups) {
	for {
		id := m.waiter.Load()
		ids, err := m.waiting(ctx, id)
		if err != nil || len(ids) == 0 {
			pause := kineWakeRecheck
			if err != nil {
				pause = kineWakeRetry
			}
			if !sleepFor(ctx, pause) {
				return
			}
			continue
		}
		if !sleepFor(ctx, kineWakeReadyAfter) {
			return
		}
		if m.waiter.Load() == id {
			w.reached()
			return
		}
	}
}
