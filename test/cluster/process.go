package cluster

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Process is a child process whose output goes to a log file.
type Process struct {
	Args    []string
	LogPath string

	cmd  *exec.Cmd
	done chan struct{}
}

// Start runs name with args, output to logPath, and returns at once.
func Start(logPath, name string, args ...string) (*Process, error) {
	return StartCommand(logPath, exec.Command(name, args...))
}

// StartCommand starts cmd (with its Dir and Env as set), output to logPath,
// and returns at once.
func StartCommand(logPath string, cmd *exec.Cmd) (*Process, error) {
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer f.Close() // the child has its own descriptor
	cmd.Stdout, cmd.Stderr = f, f
	p := &Process{Args: cmd.Args, LogPath: logPath, cmd: cmd, done: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", strings.Join(cmd.Args, " "), err)
	}
	go func() { _ = cmd.Wait(); close(p.done) }() // the exit status is in cmd.ProcessState
	return p, nil
}

// Pid is the process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Exited reports whether the process has ended.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Done is closed when the process has ended.
func (p *Process) Done() <-chan struct{} { return p.done }

// State is how the process ended; nil while it runs.
func (p *Process) State() *os.ProcessState {
	if !p.Exited() {
		return nil
	}
	return p.cmd.ProcessState
}

// Log is what the process printed so far.
func (p *Process) Log() string {
	data, err := os.ReadFile(p.LogPath)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", p.LogPath, err)
	}
	return string(data)
}

// Describe is the command line, the state and the output, for failure
// messages.
func (p *Process) Describe() string {
	state := "running"
	if p.Exited() {
		state = "exited: " + p.cmd.ProcessState.String()
	}
	out := p.Log()
	if out != "" && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	return fmt.Sprintf("$ %s\n  (pid %d, %s)\n--- output (%s) ---\n%s", strings.Join(p.Args, " "), p.Pid(), state, p.LogPath, out)
}

// Signal sends sig and waits up to timeout for the process to exit; it
// returns the exit code (-1 for death by a signal). A process still running
// after timeout is killed, and that is an error.
func (p *Process) Signal(sig os.Signal, timeout time.Duration) (int, error) {
	if !p.Exited() {
		if err := p.cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
			return 0, err
		}
	}
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode(), nil
	case <-time.After(timeout):
		p.Kill()
		return -1, fmt.Errorf("still running %s after %v; killed it", p.Args[0], timeout)
	}
}

// Stop asks the process to end (SIGTERM) and kills it if it has not after
// timeout.
func (p *Process) Stop(timeout time.Duration) { _, _ = p.Signal(syscall.SIGTERM, timeout) }

// Kill ends the process with SIGKILL, as a crash would, and waits for it.
func (p *Process) Kill() {
	if p.Exited() {
		return
	}
	_ = p.cmd.Process.Kill()
	<-p.done
}

// handedOut holds every port FreePort returned in this process: a port nothing
// listens on yet is free again for the kernel, and two members of one cluster given
// the same port fail to start.
var handedOut = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago and that no
// earlier call in this process returned.
func FreePort() (int, error) {
	handedOut.Lock()
	defer handedOut.Unlock()
	for {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if !handedOut.ports[port] {
			handedOut.ports[port] = true
			return port, nil
		}
	}
}

// Poll calls check every 100ms until it returns nil or timeout passes; it
// gives up at once when exited is closed (the process it waits for died).
func Poll(timeout time.Duration, exited <-chan struct{}, check func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := check()
		if err == nil {
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("the process exited: %w", err)
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("after %v: %w", timeout, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

var errNotReady = errors.New("not ready")
