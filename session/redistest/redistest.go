// Package redistest runs real redis-server processes for tests, on a free
// loopback port, without persistence; a test may stop and restart one to
// see what its code does while Redis is away. redis-server must be on PATH:
// a store test that silently did not run would prove nothing.
package redistest

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolguard/toolguard/internal/safebuf"
)

// Far above what a healthy machine needs.
const (
	startWait = 2 * time.Minute
	stopWait  = 10 * time.Second
)

// Options configures a server; the zero value has no password.
type Options struct {
	// Password, when set, is required of clients (requirepass).
	Password string
	// Config, when set, is written to a file given first to redis-server
	// (a Sentinel needs one it can rewrite).
	Config string
	// Args are more arguments (--cluster-enabled yes, --sentinel).
	Args []string
}

// Server is one redis-server for a test, used from the test's goroutine.
type Server struct {
	t    testing.TB
	bin  string
	opts Options
	dir  string
	// Port is on 127.0.0.1 and stays the same across Stop and Start.
	Port int

	proc *process // nil while stopped
}

// process is one run of redis-server.
type process struct {
	cmd    *exec.Cmd
	out    *safebuf.Buffer
	exited chan struct{} // closed once the process has been reaped
}

// Start starts a redis-server on a free port, waits until it answers PING,
// and stops it when the test ends.
func Start(t testing.TB, opts ...Options) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatalf("redistest: redis-server is not on PATH (%v): install Debian's redis-server package "+
			"(apt-get install redis-server; .ci/run does it); the Redis session store tests need a real server", err)
	}
	s := &Server{t: t, bin: bin, dir: t.TempDir()}
	if len(opts) > 0 {
		s.opts = opts[0]
	}
	t.Cleanup(s.Stop)
	// Another process may take the free port before redis-server binds it.
	var lastErr error
	for range 5 {
		port, err := freePort()
		if err != nil {
			t.Fatalf("redistest: find a free port: %v", err)
		}
		s.Port = port
		if lastErr = s.start(); lastErr == nil {
			return s
		}
	}
	t.Fatalf("redistest: %v", lastErr)
	return nil
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port)) }

// URL is the redis:// URL of the server, with its password if it has one.
func (s *Server) URL() string {
	u := url.URL{Scheme: "redis", Host: s.Addr(), Path: "/0"}
	if s.opts.Password != "" {
		u.User = url.UserPassword("", s.opts.Password)
	}
	return u.String()
}

// Stop stops the server (SIGTERM, then SIGKILL) and waits for it to exit;
// its data is gone.
func (s *Server) Stop() {
	s.t.Helper()
	p := s.proc
	if p == nil {
		return
	}
	s.proc = nil
	_ = p.cmd.Process.Signal(syscall.SIGCONT) // a paused server cannot handle SIGTERM
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(stopWait):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// Pause freezes the server (SIGSTOP): connections stay open but nothing is
// answered, like a stuck server or a path that drops packets.
func (s *Server) Pause() { s.signal(syscall.SIGSTOP) }

// Resume lets a paused server run again (SIGCONT).
func (s *Server) Resume() { s.signal(syscall.SIGCONT) }

func (s *Server) signal(sig syscall.Signal) {
	s.t.Helper()
	if s.proc == nil {
		s.t.Fatalf("redistest: signal %v to a stopped server", sig)
	}
	if err := s.proc.cmd.Process.Signal(sig); err != nil {
		s.t.Fatalf("redistest: signal %v: %v", sig, err)
	}
}

// Restart starts a stopped server again on the same port, empty.
func (s *Server) Restart() {
	s.t.Helper()
	if s.proc != nil {
		s.t.Fatal("redistest: Restart of a running server; Stop it first")
	}
	if err := s.start(); err != nil {
		s.t.Fatalf("redistest: restart on port %d: %v", s.Port, err)
	}
}

// start runs redis-server on s.Port and waits for PING.
func (s *Server) start() error {
	var args []string
	if s.opts.Config != "" {
		conf := filepath.Join(s.dir, "redis.conf")
		if err := os.WriteFile(conf, []byte(s.opts.Config), 0o600); err != nil {
			return err
		}
		args = append(args, conf)
	}
	args = append(args,
		"--port", strconv.Itoa(s.Port),
		"--bind", "127.0.0.1",
		"--save", "",
		"--appendonly", "no",
		"--dir", s.dir,
		"--daemonize", "no",
		"--logfile", "",
	)
	if s.opts.Password != "" {
		args = append(args, "--requirepass", s.opts.Password)
	}
	args = append(args, s.opts.Args...)
	cmd := exec.Command(s.bin, args...)
	cmd.SysProcAttr = procAttr()
	out := &safebuf.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", s.bin, err)
	}
	p := &process{cmd: cmd, out: out, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()

	deadline := time.Now().Add(startWait)
	for {
		select {
		case <-p.exited:
			return fmt.Errorf("redis-server on port %d exited before answering PING; its output:\n%s", s.Port, out.String())
		default:
		}
		if err := ping(s.Addr()); err == nil {
			s.proc = p
			return nil
		} else if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-p.exited
			return fmt.Errorf("redis-server on port %d did not answer PING within %v (%v); its output:\n%s", s.Port, startWait, err, out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ping accepts PONG, or NOAUTH from a server that wants a password.
func ping(addr string) error {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close() }()
	_ = conn.SetDeadline(time.Now().Add(time.Second))
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return err
	}
	if strings.HasPrefix(line, "+PONG") || strings.HasPrefix(line, "-NOAUTH") {
		return nil
	}
	return errors.New("unexpected PING reply " + strconv.Quote(line))
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// CPU is the CPU time (user and system) the running server has used, from
// /proc (Linux; an error elsewhere): how busy its one main thread is.
func (s *Server) CPU() (time.Duration, error) {
	if s.proc == nil {
		return 0, errors.New("redistest: CPU of a stopped server")
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.proc.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold spaces: count fields
	// after it. utime and stime are the 14th and 15th, in clock ticks
	// (USER_HZ, 100 on Linux).
	rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0, fmt.Errorf("redistest: /proc stat %q", stat)
	}
	var ticks int64
	for _, v := range f[11:13] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, err
		}
		ticks += n
	}
	return time.Duration(ticks) * (time.Second / 100), nil
}
