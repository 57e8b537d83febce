package redistest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Kill kills the server (SIGKILL), as a crashed node, and waits for it.
func (s *Server) Kill() {
	s.t.Helper()
	p := s.proc
	if p == nil {
		return
	}
	s.proc = nil
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited
}

// Cluster is a Redis Cluster of masters on loopback, with no replica.
type Cluster struct {
	Nodes []*Server
}

// StartCluster starts n cluster-enabled servers, makes them one cluster
// (redis-cli --cluster create) and waits until every node says ok.
func StartCluster(t testing.TB, n int) *Cluster {
	t.Helper()
	cli := redisCLI(t)
	c := &Cluster{}
	for range n {
		c.Nodes = append(c.Nodes, Start(t, Options{Args: []string{
			"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "1000"}}))
	}
	args := []string{"--cluster", "create"}
	for _, s := range c.Nodes {
		args = append(args, s.Addr())
	}
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
	if out, err := exec.Command(cli, args...).CombinedOutput(); err != nil {
		t.Fatalf("redistest: redis-cli --cluster create: %v\n%s", err, out)
	}
	deadline := time.Now().Add(startWait)
	for _, s := range c.Nodes {
		for {
			info, err := command(s.Addr(), "CLUSTER INFO")
			if err == nil && strings.Contains(info, "cluster_state:ok") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("redistest: cluster node %s not ok within %v: %q, %v", s.Addr(), startWait, info, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return c
}

// URL is a redis:// URL listing every node.
func (c *Cluster) URL() string {
	addrs := make([]string, len(c.Nodes))
	for i, s := range c.Nodes {
		addrs[i] = s.Addr()
	}
	return "redis://" + strings.Join(addrs, ",")
}

// Sentinel is a master, its replica and one Sentinel watching them
// (quorum 1), on loopback.
type Sentinel struct {
	Master, Replica, Sentinel *Server
	// Name is the master's name at the Sentinel.
	Name string
}

// StartSentinel starts a master, a replica of it and a Sentinel, and
// waits until the Sentinel knows the replica and the replica is in sync.
func StartSentinel(t testing.TB) *Sentinel {
	t.Helper()
	st := &Sentinel{Name: "toolguard", Master: Start(t)}
	st.Replica = Start(t, Options{Args: []string{"--replicaof", "127.0.0.1", strconv.Itoa(st.Master.Port)}})
	st.Sentinel = Start(t, Options{
		Config: fmt.Sprintf("sentinel monitor %s 127.0.0.1 %d 1\nsentinel down-after-milliseconds %[1]s 500\n"+
			"sentinel failover-timeout %[1]s 5000\n", st.Name, st.Master.Port),
		Args: []string{"--sentinel"},
	})
	deadline := time.Now().Add(startWait)
	for {
		out, err := command(st.Sentinel.Addr(), "SENTINEL REPLICAS "+st.Name)
		if err == nil && strings.Contains(out, strconv.Itoa(st.Replica.Port)) && !strings.Contains(out, "s_down") {
			var repl string
			if repl, err = command(st.Replica.Addr(), "INFO replication"); err == nil && strings.Contains(repl, "master_link_status:up") {
				return st
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("redistest: the Sentinel does not know the replica within %v: %q, %v", startWait, out, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// URL is a redis:// URL naming the Sentinel.
func (st *Sentinel) URL() string { return "redis://" + st.Sentinel.Addr() }

// Primary returns the address the Sentinel gives for the master now.
func (st *Sentinel) Primary() (string, error) {
	out, err := command(st.Sentinel.Addr(), "SENTINEL GET-MASTER-ADDR-BY-NAME "+st.Name)
	if err != nil {
		return "", err
	}
	f := strings.Fields(out)
	if len(f) != 2 {
		return "", fmt.Errorf("master address %q", out)
	}
	return net.JoinHostPort(f[0], f[1]), nil
}

func redisCLI(t testing.TB) string {
	t.Helper()
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		t.Fatalf("redistest: redis-cli is not on PATH (%v): install Debian's redis-tools package (scripts/deps.sh does it)", err)
	}
	return cli
}

// command sends one inline command and returns the reply's text: a
// status, an error, a bulk string, or an array's strings one per line.
func command(addr, cmd string) (string, error) {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return "", err
	}
	defer func() { _ = conn.Close() }()
	_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := conn.Write([]byte(cmd + "\r\n")); err != nil {
		return "", err
	}
	return readReply(bufio.NewReader(conn))
}

func readReply(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", fmt.Errorf("empty reply")
	}
	switch line[0] {
	case '+', ':':
		return line[1:], nil
	case '-':
		return "", fmt.Errorf("%s", line[1:])
	case '$':
		n, err := strconv.Atoi(line[1:])
		if err != nil || n < 0 {
			return "", err
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return "", err
		}
		return string(buf[:n]), nil
	case '*':
		n, err := strconv.Atoi(line[1:])
		if err != nil {
			return "", err
		}
		var parts []string
		for range n {
			p, err := readReply(r)
			if err != nil {
				return "", err
			}
			parts = append(parts, p)
		}
		return strings.Join(parts, "\n"), nil
	}
	return "", fmt.Errorf("unexpected reply %q", line)
}
