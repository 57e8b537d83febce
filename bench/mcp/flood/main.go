// Command flood measures what `toolguard mcp --http` holds under many
// sessions and slow bodies (issue 27): it sends -n initialize requests
// without ever ending a session, then opens -slow connections that send
// their headers and one byte of a body, and reports the status codes, the
// server's resident memory (from /proc, given -pid) and how many slow
// connections the server still holds open after -hold. Loopback only.
//
//	go run ./bench/mcp/flood -url http://127.0.0.1:7710/ -pid $PID
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"flood","version":"1"}}}`

func main() {
	target := flag.String("url", "http://127.0.0.1:7710/", "MCP endpoint (loopback only)")
	pid := flag.Int("pid", 0, "server's process id, to read its resident memory")
	n := flag.Int("n", 40000, "initialize requests")
	workers := flag.Int("c", 32, "concurrent requests")
	slow := flag.Int("slow", 1000, "slow-body connections")
	hold := flag.Duration("hold", 45*time.Second, "how long the slow bodies wait before they are counted")
	flag.Parse()
	u, err := url.Parse(*target)
	if err != nil || !isLoopback(u.Hostname()) {
		fmt.Fprintln(os.Stderr, "flood: -url must be a loopback http URL")
		os.Exit(2)
	}
	fmt.Printf("rss before: %s\n", rss(*pid))
	codes := initializes(*target, *n, *workers)
	fmt.Printf("%d initialize requests: %s\n", *n, codes)
	fmt.Printf("rss after the initialize requests: %s\n", rss(*pid))
	if *slow > 0 {
		slowBodies(u.Host, *slow, *hold)
		fmt.Printf("rss after the slow bodies: %s\n", rss(*pid))
	}
}

func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || ip != nil && ip.IsLoopback()
}

// initializes sends n initialize requests, none followed by a DELETE, and
// counts the status codes.
func initializes(target string, n, workers int) string {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}, Timeout: time.Minute}
	var next atomic.Int64
	var mu sync.Mutex
	codes := map[string]int{}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for next.Add(1) <= int64(n) {
				req, _ := http.NewRequest(http.MethodPost, target, strings.NewReader(initialize))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				key := ""
				if resp, err := client.Do(req); err != nil {
					key = "error"
				} else {
					_, _ = io.Copy(io.Discard, resp.Body)
					_ = resp.Body.Close()
					key = fmt.Sprint(resp.StatusCode)
				}
				mu.Lock()
				codes[key]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	var parts []string
	for k, v := range codes {
		parts = append(parts, fmt.Sprintf("%s×%d", k, v))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

// slowBodies opens n connections that announce a body and send one byte
// of it, waits hold, and counts the connections the server has not closed.
func slowBodies(host string, n int, hold time.Duration) {
	var conns []net.Conn
	refused := 0
	for range n {
		c, err := net.DialTimeout("tcp", host, 5*time.Second)
		if err != nil {
			refused++
			continue
		}
		fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{", host)
		conns = append(conns, c)
	}
	fmt.Printf("%d slow bodies: %d connected, %d refused; waiting %s\n", n, len(conns), refused, hold)
	time.Sleep(hold)
	open, answered := 0, map[string]int{}
	var buf [512]byte
	for _, c := range conns {
		_ = c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		k, err := c.Read(buf[:])
		switch {
		case k > 0:
			line, _, _ := bufio.NewReader(bytes.NewReader(buf[:k])).ReadLine()
			answered[string(line)]++
		case err != nil && isTimeout(err):
			open++
		}
		_ = c.Close()
	}
	fmt.Printf("after %s: %d still open (no answer, not closed), answered %v, %d closed without an answer\n",
		hold, open, answered, len(conns)-open-sum(answered))
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

func sum(m map[string]int) int {
	t := 0
	for _, v := range m {
		t += v
	}
	return t
}

// rss reads the process's resident memory.
func rss(pid int) string {
	if pid == 0 {
		return "(no -pid)"
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return err.Error()
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmRSS:"))
		}
	}
	return "?"
}
