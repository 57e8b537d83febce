package redistest

import (
	"bufio"
	"context"
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

// Cluster is a Redis Cluster on loopback.
type Cluster struct {
	// Nodes are every node, masters first as created.
	Nodes []*Server
	// Replicas maps a master to its replicas (StartClusterReplicas).
	Replicas map[*Server][]*Server
}

// StartCluster starts n cluster-enabled servers, makes them one cluster of
// masters with no replica (redis-cli --cluster create) and waits until
// every node says ok.
func StartCluster(t testing.TB, n int) *Cluster {
	t.Helper()
	return startCluster(t, n, 0)
}

// StartClusterReplicas starts a cluster of masters, each with replicas
// replicas, and waits until every node knows every other and every master
// streams its writes to its replicas. A replica takes over one second (cluster-node-timeout)
// after its master stops answering, whatever its replication lag.
func StartClusterReplicas(t testing.TB, masters, replicas int) *Cluster {
	t.Helper()
	return startCluster(t, masters, replicas)
}

func startCluster(t testing.TB, masters, replicas int) *Cluster {
	t.Helper()
	cli := redisCLI(t)
	c := &Cluster{Replicas: map[*Server][]*Server{}}
	// A node that misses the others' pings for the node timeout is marked
	// failing, and a cluster of masters alone is then down: on a busy
	// machine one second is missed. Only a failover needs it short.
	nodeTimeout := "30000"
	if replicas > 0 {
		nodeTimeout = "1000"
	}
	for range masters * (1 + replicas) {
		c.Nodes = append(c.Nodes, Start(t, Options{Args: []string{
			"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", nodeTimeout,
			"--cluster-replica-validity-factor", "0", "--repl-diskless-sync-delay", "0", "--repl-ping-replica-period", "1"}}))
	}
	args := []string{"--cluster", "create"}
	for _, s := range c.Nodes {
		args = append(args, s.Addr())
	}
	args = append(args, "--cluster-replicas", strconv.Itoa(replicas), "--cluster-yes")
	// redis-cli waits for the nodes to agree with no limit of its own.
	ctx, cancel := context.WithTimeout(context.Background(), startWait)
	defer cancel()
	if out, err := exec.CommandContext(ctx, cli, args...).CombinedOutput(); err != nil {
		t.Fatalf("redistest: redis-cli --cluster create: %v\n%s", err, out)
	}
	deadline := time.Now().Add(startWait)
	for _, s := range c.Nodes {
		for {
			err := clusterReady(s, len(c.Nodes))
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("redistest: cluster node %s not ready within %v: %v", s.Addr(), startWait, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if replicas > 0 {
		byPort := map[string]*Server{}
		for _, s := range c.Nodes {
			byPort[strconv.Itoa(s.Port)] = s
		}
		for _, s := range c.Nodes {
			info, err := command(s.Addr(), "INFO replication")
			if err != nil {
				t.Fatalf("redistest: INFO replication of %s: %v", s.Addr(), err)
			}
			if port := infoField(info, "master_port"); port != "" {
				m := byPort[port]
				c.Replicas[m] = append(c.Replicas[m], s)
			}
		}
		for m, rs := range c.Replicas {
			waitOnline(t, m, len(rs), deadline)
		}
	}
	return c
}

// waitOnline waits until the master streams its writes to n replicas. A
// replica's link is up once it has loaded the master's snapshot, but the
// master holds the writes since then until the replica's first ACK: a
// master killed in between takes them with it.
func waitOnline(t testing.TB, master *Server, n int, deadline time.Time) {
	t.Helper()
	for {
		info, err := command(master.Addr(), "INFO replication")
		if err == nil && streaming(info) >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("redistest: the master %s does not stream to %d replica(s) within %v: %q, %v", master.Addr(), n, startWait, info, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// streaming counts the replicas a master's INFO replication lists online
// with an offset acknowledged above 0: it streams to a replica from its
// first ACK, and its PING each second (repl-ping-replica-period 1) moves
// the offset even with nothing written.
func streaming(info string) int {
	n := 0
	for _, line := range strings.Split(info, "\n") {
		if !strings.HasPrefix(line, "slave") || !strings.Contains(line, ",state=online,") {
			continue
		}
		if _, off, ok := strings.Cut(line, ",offset="); ok && !strings.HasPrefix(off, "0,") {
			n++
		}
	}
	return n
}

// clusterReady: the node says ok, knows all n nodes, and if a replica, is
// in sync with its master.
func clusterReady(s *Server, n int) error {
	info, err := command(s.Addr(), "CLUSTER INFO")
	if err != nil {
		return err
	}
	if infoField(info, "cluster_state") != "ok" || infoField(info, "cluster_known_nodes") != strconv.Itoa(n) {
		return fmt.Errorf("CLUSTER INFO %q", info)
	}
	repl, err := command(s.Addr(), "INFO replication")
	if err != nil {
		return err
	}
	if infoField(repl, "role") == "slave" && infoField(repl, "master_link_status") != "up" {
		return fmt.Errorf("replica not in sync: %q", repl)
	}
	return nil
}

// Role is the node's role now: "master" or "slave".
func (s *Server) Role() (string, error) {
	repl, err := command(s.Addr(), "INFO replication")
	if err != nil {
		return "", err
	}
	return infoField(repl, "role"), nil
}

// infoField is a field of an INFO or CLUSTER INFO reply.
func infoField(info, name string) string {
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+":"); ok {
			return v
		}
	}
	return ""
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
// waits until the Sentinel knows the replica and the master streams its
// writes to it.
func StartSentinel(t testing.TB) *Sentinel {
	t.Helper()
	st := &Sentinel{Name: "toolguard", Master: Start(t, Options{Args: []string{
		"--repl-diskless-sync-delay", "0", "--repl-ping-replica-period", "1"}})}
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
				waitOnline(t, st.Master, 1, deadline)
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
