package cluster

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Process is a child process whose output goes to a log file.
type Process struct {
	Args    []string
	LogPath string

	cmd     *exec.Cmd
	done    chan struct{}
	waitErr error
}

// Start runs name with args, output to logPath, and returns at once.
func Start(logPath, name string, args ...string) (*Process, error) {
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer f.Close() // the child has its own descriptor
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = f, f
	p := &Process{Args: append([]string{name}, args...), LogPath: logPath, cmd: cmd, done: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	go func() { p.waitErr = cmd.Wait(); close(p.done) }()
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

// ExitCode is the exit code once Exited, -1 for death by a signal.
func (p *Process) ExitCode() int { return p.cmd.ProcessState.ExitCode() }

// Log is what the process printed so far.
func (p *Process) Log() string {
	data, err := os.ReadFile(p.LogPath)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", p.LogPath, err)
	}
	return string(data)
}

// Describe is the command line, the state and the last lines of output, for
// failure messages.
func (p *Process) Describe() string {
	state := "running"
	if p.Exited() {
		state = p.cmd.ProcessState.String()
	}
	out := p.Log()
	if lines := strings.SplitAfter(out, "\n"); len(lines) > 60 {
		out = "...\n" + strings.Join(lines[len(lines)-60:], "")
	}
	return fmt.Sprintf("$ %s\n  (pid %d, %s; log %s)\n%s", strings.Join(p.Args, " "), p.Pid(), state, p.LogPath, out)
}

// Stop asks the process to end (SIGTERM) and kills it if it has not after
// timeout.
func (p *Process) Stop(timeout time.Duration) {
	if p.Exited() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(timeout):
		p.Kill()
	}
}

// Kill ends the process with SIGKILL, as a crash would, and waits for it.
func (p *Process) Kill() {
	if p.Exited() {
		return
	}
	_ = p.cmd.Process.Kill()
	<-p.done
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
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
