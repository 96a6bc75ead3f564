//go:build !apigen_etcdonly

package server

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apigen-dev/apigen/test/cluster"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// wakeupLatencyBound is how late another replica's write may reach a ready
// replica's watch: a wake-up brings it in milliseconds, kine's poll
// (kinePollInterval) up to a second late.
const wakeupLatencyBound = 300 * time.Millisecond

// A replica on Postgres or MariaDB is not ready until the other replicas' writes
// wake it. Another replica writes every 50 ms from before this one starts;
// this replica's readyz check fails at first and passes once its wake-ups are
// in place (no sooner than kineWakePollWarm, when kine's poll loop reads when
// woken, and on MariaDB kineWakeReadyAfter, when every writer's process list
// shows its waiting query). From then on each write reaches its watch within
// wakeupLatencyBound, not at kine's poll. Busy, the other replica writes while
// this one starts too, and those writes have reached it by the time it is
// ready; quiet, it pauses from this one's start until it is ready, and the
// first write after is the first this one's poll loop is woken for.
func TestWakeupsHoldReadiness(t *testing.T) {
	for _, db := range []struct {
		name       string
		start      func(cluster.DatabaseOptions) (*cluster.Database, error)
		readyAfter time.Duration
	}{
		{"postgres", cluster.StartPostgres, 0},
		{"mariadb", cluster.StartMariaDB, kineWakeReadyAfter},
	} {
		t.Run(db.name, func(t *testing.T) {
			d := cluster.StartForTest(t, db.start)
			opts := &datastoreOptions{resolved: d.Endpoint, source: d.Name}
			readyAfter := max(kineWakePollWarm, db.readyAfter)
			t.Run("busy", func(t *testing.T) { testWakeupsHoldReadiness(t, opts, readyAfter, true) })
			t.Run("quiet", func(t *testing.T) { testWakeupsHoldReadiness(t, opts, readyAfter, false) })
		})
	}
}

// write is one write of the other replica: its revision, and when it returned.
type write struct {
	rev  int64
	done time.Time
}

func testWakeupsHoldReadiness(t *testing.T, opts *datastoreOptions, readyAfter time.Duration, busy bool) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	prefix := "/wake/quiet/"
	if busy {
		prefix = "/wake/busy/"
	}

	// The other replica, written to as the API server writes: a create is a
	// transaction on the key's absence.
	other, otherEndpoint, err := startKine(ctx, opts, filepath.Join(t.TempDir(), kineSocket))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := pollFor(30*time.Second, func() error { return other.readyzChecks()[0].Check(nil) }); err != nil {
		t.Fatalf("the writing replica's wake-ups: %v", err)
	}
	otherClient, err := clientv3.New(clientv3.Config{Endpoints: []string{otherEndpoint}, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer otherClient.Close()

	var mu sync.Mutex
	writes := map[string]write{}
	received := map[string]time.Time{}
	stop := make(chan struct{})
	writing := make(chan struct{})
	// pause, unless busy, stops the writes until it is closed.
	var pause chan struct{}
	var pauseMu sync.Mutex
	// Once this replica is ready, each write waits for its watch to see the
	// last (at most a poll interval and more), as a client waits for what it
	// wrote: kine's poll loop is then woken by one write at a time.
	var ready atomic.Bool
	go func() {
		defer close(writing)
		for i := 0; ; i++ {
			pauseMu.Lock()
			p := pause
			pauseMu.Unlock()
			if p != nil {
				select {
				case <-stop:
					return
				case <-p:
				}
			}
			key := fmt.Sprintf("%s%05d", prefix, i)
			resp, err := otherClient.Txn(ctx).If(clientv3.Compare(clientv3.ModRevision(key), "=", 0)).Then(clientv3.OpPut(key, "v")).Commit()
			if err == nil && !resp.Succeeded {
				err = errors.New("the key exists")
			}
			if err != nil {
				t.Errorf("the other replica's create of %s: %v", key, err)
				return
			}
			rev := resp.Header.Revision
			mu.Lock()
			writes[key] = write{rev, time.Now()}
			mu.Unlock()
			if ready.Load() {
				pollFor(kinePollInterval+time.Second, func() error {
					mu.Lock()
					defer mu.Unlock()
					if _, ok := received[key]; !ok {
						return errors.New("not seen yet")
					}
					return nil
				})
			}
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	// The writer has read the process list (MariaDB) before this replica starts.
	time.Sleep(300 * time.Millisecond)

	resume := make(chan struct{})
	if !busy {
		pauseMu.Lock()
		pause = resume
		pauseMu.Unlock()
	}
	started := time.Now()
	k, endpoint, err := startKine(ctx, opts, filepath.Join(t.TempDir(), kineSocket))
	if err != nil {
		close(stop)
		<-writing
		t.Fatal(err)
	}
	defer k.Close()
	checks := k.readyzChecks()
	if len(checks) != 1 || checks[0].Name() != kineWakeReadyCheck {
		t.Fatalf("readyz checks %v, want one named %s", checks, kineWakeReadyCheck)
	}
	check := func() error { return checks[0].Check(nil) }
	if err := check(); err == nil {
		t.Errorf("%s passed as kine started, before its wake-ups could be in place", kineWakeReadyCheck)
	}

	client, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	watch := client.Watch(ctx, prefix, clientv3.WithPrefix(), clientv3.WithCreatedNotify())
	created, ok := <-watch
	if !ok || !created.Created {
		t.Fatalf("watching through the starting replica: %+v %v", created, created.Err())
	}
	watchRev := created.Header.Revision
	watching := make(chan struct{})
	go func() {
		defer close(watching)
		for resp := range watch {
			now := time.Now()
			mu.Lock()
			for _, ev := range resp.Events {
				received[string(ev.Kv.Key)] = now
			}
			mu.Unlock()
		}
	}()

	if err := pollFor(30*time.Second, check); err != nil {
		t.Fatalf("%s: %v", kineWakeReadyCheck, err)
	}
	readyAt := time.Now()
	ready.Store(true)
	pauseMu.Lock()
	pause = nil
	pauseMu.Unlock()
	close(resume)
	if took := readyAt.Sub(started); took < readyAfter {
		t.Errorf("ready %v after kine started, before every writer's process list could show its waiting query (%v)", took, readyAfter)
	}
	t.Logf("ready %v after kine started", readyAt.Sub(started).Round(time.Millisecond))

	time.Sleep(2 * time.Second)
	close(stop)
	<-writing
	// Long enough for kine's poll to bring any write its wake-up missed.
	time.Sleep(kinePollInterval + 500*time.Millisecond)
	cancel()
	<-watching

	mu.Lock()
	defer mu.Unlock()
	var after, late int
	for _, key := range slices.Sorted(maps.Keys(writes)) {
		w := writes[key]
		if w.rev <= watchRev {
			continue
		}
		due := w.done
		if due.Before(readyAt) {
			due = readyAt
		} else {
			after++
		}
		got, ok := received[key]
		switch {
		case !ok:
			t.Errorf("%s (revision %d) never reached the replica's watch", key, w.rev)
		case got.Sub(due) > wakeupLatencyBound:
			late++
			t.Errorf("%s (revision %d, written %v after kine started) reached the watch %v after the replica was ready and it written; want at most %v",
				key, w.rev, w.done.Sub(started).Round(time.Millisecond), got.Sub(due).Round(time.Millisecond), wakeupLatencyBound)
		}
	}
	if after < 10 {
		t.Errorf("%d writes after the replica was ready, want at least 10", after)
	}
	t.Logf("%d writes, %d after the replica was ready; %d late", len(writes), after, late)
}

// pollFor calls f every 5 ms until it returns nil or d has passed, and
// returns its last error then.
func pollFor(d time.Duration, f func() error) error {
	deadline := time.Now().Add(d)
	for {
		err := f()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(5 * time.Millisecond)
	}
}
