package cluster

import (
	"io"
	"net"
	"slices"
	"sync"
	"time"
)

// LoadBalancer stands in for kube-proxy in front of a Service with several
// endpoints: it accepts TCP connections on 127.0.0.1 and hands each to the
// next backend in turn, skipping backends that refuse the connection.
type LoadBalancer struct {
	Port int

	listener net.Listener
	backends []string
	mu       sync.Mutex
	next     int
	conns    map[net.Conn]struct{}
	active   []int // open connections per backend
	wg       sync.WaitGroup
}

// NewLoadBalancer listens on a free port of 127.0.0.1 for backends
// (host:port).
func NewLoadBalancer(backends ...string) (*LoadBalancer, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	lb := &LoadBalancer{
		Port: l.Addr().(*net.TCPAddr).Port, listener: l, backends: backends,
		conns: map[net.Conn]struct{}{}, active: make([]int, len(backends)),
	}
	lb.wg.Add(1)
	go lb.serve()
	return lb, nil
}

func (lb *LoadBalancer) serve() {
	defer lb.wg.Done()
	for {
		c, err := lb.listener.Accept()
		if err != nil {
			return
		}
		lb.wg.Add(1)
		go func() { defer lb.wg.Done(); lb.forward(c) }()
	}
}

func (lb *LoadBalancer) forward(client net.Conn) {
	defer client.Close()
	lb.mu.Lock()
	start := lb.next
	lb.next = (lb.next + 1) % len(lb.backends)
	lb.mu.Unlock()
	var backend net.Conn
	index := 0
	for i := range lb.backends {
		index = (start + i) % len(lb.backends)
		c, err := net.DialTimeout("tcp", lb.backends[index], time.Second)
		if err == nil {
			backend = c
			break
		}
	}
	if backend == nil {
		return
	}
	defer backend.Close()
	if !lb.track(index, client, backend) {
		return
	}
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		// Either side ending ends the pair, as a dead endpoint's connection
		// does behind kube-proxy.
		client.Close()
		backend.Close()
		done <- struct{}{}
	}
	go pipe(backend, client)
	go pipe(client, backend)
	<-done
	<-done
	lb.untrack(index, client, backend)
}

func (lb *LoadBalancer) track(backend int, cs ...net.Conn) bool {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	if lb.conns == nil {
		return false // closed
	}
	for _, c := range cs {
		lb.conns[c] = struct{}{}
	}
	lb.active[backend]++
	return true
}

func (lb *LoadBalancer) untrack(backend int, cs ...net.Conn) {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	for _, c := range cs {
		delete(lb.conns, c)
	}
	lb.active[backend]--
}

// Active is the number of open connections to each backend.
func (lb *LoadBalancer) Active() []int {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	return slices.Clone(lb.active)
}

// Close stops listening and ends every forwarded connection.
func (lb *LoadBalancer) Close() {
	lb.listener.Close()
	lb.mu.Lock()
	for c := range lb.conns {
		c.Close()
	}
	lb.conns = nil
	lb.mu.Unlock()
	lb.wg.Wait()
}
