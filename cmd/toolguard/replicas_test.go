//go:build unix

package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/internal/safebuf"
	"github.com/toolguard/toolguard/session/redistest"
)

// serveChildEnv makes the test binary run the command line it is given, as
// the toolguard binary would: a real process apart from the test's.
const serveChildEnv = "TOOLGUARD_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(serveChildEnv) == "1" {
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

const (
	replicaFiles   = 4
	editsPerServer = 200
	// Every file ends with this line; each edit puts its own line before
	// it, so an edit is a read-modify-write of the whole file.
	endLine = "END"
)

// TestReplicasShareWorkspace runs two `toolguard serve` processes on one
// workspace directory and one redis-server, and sends each 200 concurrent
// edits of the same files, every edit adding its own line. With one lock
// directory every line is there at the end, each file whole, no temporary
// file left, and a session's mistakes count across both servers.
// TestReplicasRefuseOtherLockDir shows the replicas that would lose lines
// (a lock directory each, or none) refusing to start.
func TestReplicasShareWorkspace(t *testing.T) {
	redis := redistest.Start(t)
	base := t.TempDir()
	ws := filepath.Join(base, "workspace")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	for f := range replicaFiles {
		writeTestFile(t, filepath.Join(ws, replicaFile(f)), "header\n"+endLine+"\n")
	}
	var clients [2]toolguardv1.ToolGuardServiceClient
	for i := range clients {
		clients[i] = startServeProcess(t, "--workspace", ws, "--lock-dir", filepath.Join(base, "locks"),
			"--session-store", "redis", "--redis-url", redis.URL(), "--redis-key-prefix", "replicas:",
			// Not a test of outages: room for a loaded machine.
			"--redis-timeout", "5s")
	}
	applied, failed := concurrentEdits(t, clients)
	lost, torn := checkEditedFiles(t, ws, applied)
	t.Logf("%d edits applied, %d refused, %d lines lost, %d files torn", len(applied), failed, lost, torn)
	if torn != 0 {
		t.Errorf("%d files torn", torn)
	}
	if tmp := tempsIn(t, ws); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
	if failed != 0 || lost != 0 {
		t.Errorf("with one lock directory: %d edits refused, %d lines lost; want none", failed, lost)
	}
	checkSharedMistakes(t, clients)
	if won := racePreconditions(t, clients, ws); won != 1 {
		t.Errorf("%d writes expecting the same SHA-256 were applied, want exactly 1", won)
	}
}

// TestReplicasRefuseOtherLockDir: beside a server with a lock directory, a
// second `toolguard serve` on the same workspace with another lock
// directory, or none, exits at start naming the lock directory to use,
// where before it served and lost writes.
func TestReplicasRefuseOtherLockDir(t *testing.T) {
	base := t.TempDir()
	ws := filepath.Join(base, "workspace")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	startServeProcess(t, "--workspace", ws, "--lock-dir", filepath.Join(base, "locks"))
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"another lock directory", []string{"--lock-dir", filepath.Join(base, "other")}},
		{"no lock directory", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], append([]string{"serve", "--listen", "127.0.0.1:0", "--log-format", "json", "--workspace", ws}, tc.args...)...)
			cmd.Env = append(os.Environ(), serveChildEnv+"=1")
			out, err := cmd.CombinedOutput()
			if err == nil || !strings.Contains(string(out), "the workspace is shared through another lock directory") {
				t.Fatalf("serve: %v, want a refusal naming the lock directory:\n%s", err, out)
			}
		})
	}
}

func replicaFile(f int) string { return fmt.Sprintf("shared/file-%d.txt", f) }

// concurrentEdits sends editsPerServer edits to each server at once, spread
// over the files, and returns the lines of the edits applied by file, and
// how many calls failed.
func concurrentEdits(t *testing.T, clients [2]toolguardv1.ToolGuardServiceClient) (applied map[string]int, failed int) {
	var mu sync.Mutex
	applied = map[string]int{}
	var wg sync.WaitGroup
	for s, c := range clients {
		for n := range editsPerServer {
			wg.Go(func() {
				line := fmt.Sprintf("line from server %d edit %03d", s, n)
				path := replicaFile(n % replicaFiles)
				args, _ := json.Marshal(map[string]string{"path": path, "old_text": endLine, "new_text": line + "\n" + endLine})
				resp, err := c.ExecuteEdit(context.Background(), &toolguardv1.ExecuteEditRequest{
					Context: &toolguardv1.RequestContext{SessionId: fmt.Sprintf("editor-%d-%d", s, n)},
					Call:    &toolguardv1.ToolCall{Name: "edit", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: string(args)}},
				})
				mu.Lock()
				defer mu.Unlock()
				if err != nil || !resp.GetApplied() {
					failed++
					if failed == 1 {
						t.Logf("first refused edit: %v %v", err, resp.GetVerdict().GetViolations())
					}
					return
				}
				applied[path+"\x00"+line]++
			})
		}
	}
	wg.Wait()
	return applied, failed
}

// checkEditedFiles counts the applied lines missing from the files, and the
// files that are not a header, known lines and the end line.
func checkEditedFiles(t *testing.T, ws string, applied map[string]int) (lost, torn int) {
	for f := range replicaFiles {
		path := replicaFile(f)
		data, err := os.ReadFile(filepath.Join(ws, path))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		whole := strings.HasSuffix(string(data), "\n") && len(lines) >= 2 && lines[0] == "header" && lines[len(lines)-1] == endLine
		seen := map[string]int{}
		for _, l := range lines[1 : len(lines)-1] {
			if !strings.HasPrefix(l, "line from server ") {
				whole = false
			}
			seen[l]++
		}
		if !whole {
			torn++
			t.Errorf("%s is not whole: %q", path, data)
		}
		for key := range applied {
			p, line, _ := strings.Cut(key, "\x00")
			if p != path {
				continue
			}
			switch seen[line] {
			case 0:
				lost++
			case 1:
			default:
				t.Errorf("%s holds %q %d times", path, line, seen[line])
			}
		}
	}
	return lost, torn
}

// racePreconditions sends 20 writes of one file through each server at
// once, all expecting the hash the file has now, and returns how many were
// applied: the others must find the file changed (FAILED_PRECONDITION).
func racePreconditions(t *testing.T, clients [2]toolguardv1.ToolGuardServiceClient, ws string) (won int) {
	const perServer = 20
	writeTestFile(t, filepath.Join(ws, "race.txt"), "v0\n")
	sum := sha256.Sum256([]byte("v0\n"))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for s, c := range clients {
		for n := range perServer {
			wg.Go(func() {
				args, _ := json.Marshal(map[string]string{"path": "race.txt", "content": fmt.Sprintf("server %d write %d\n", s, n)})
				resp, err := c.ExecuteWrite(context.Background(), &toolguardv1.ExecuteWriteRequest{
					Context:        &toolguardv1.RequestContext{SessionId: fmt.Sprintf("race-%d-%d", s, n)},
					Call:           &toolguardv1.ToolCall{Name: "write_to_file", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: string(args)}},
					ExpectedSha256: hex.EncodeToString(sum[:]),
				})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil && resp.GetVerdict().GetOk():
					won++
				case status.Code(err) != codes.FailedPrecondition:
					t.Errorf("write expecting a stale hash: %v, want FAILED_PRECONDITION", err)
				}
			})
		}
	}
	wg.Wait()
	return won
}

// checkSharedMistakes sends each session two mistakes through each server,
// all at once, and reads the count from both: four everywhere.
func checkSharedMistakes(t *testing.T, clients [2]toolguardv1.ToolGuardServiceClient) {
	const sessions = 20
	var wg sync.WaitGroup
	for s := range sessions {
		for k := range 4 {
			wg.Go(func() {
				args := fmt.Sprintf(`{"path": "missing-content-%d.txt"}`, k)
				_, err := clients[k%2].ValidateToolCall(context.Background(), &toolguardv1.ValidateToolCallRequest{
					Context: &toolguardv1.RequestContext{SessionId: fmt.Sprintf("mistakes-%d", s)},
					Call:    &toolguardv1.ToolCall{Name: "write_to_file", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: args}},
				})
				if err != nil {
					t.Error(err)
				}
			})
		}
	}
	wg.Wait()
	for s := range sessions {
		for i, c := range clients {
			got, err := c.GetSession(context.Background(), &toolguardv1.GetSessionRequest{SessionId: fmt.Sprintf("mistakes-%d", s)})
			if err != nil {
				t.Fatal(err)
			}
			if n := got.GetSession().GetMistakes().GetConsecutive(); n != 4 {
				t.Errorf("session mistakes-%d on server %d: %d mistakes, want 4", s, i, n)
			}
		}
	}
}

// startServeProcess runs `toolguard serve` with args on a free loopback port
// in a process of its own, stopped with SIGTERM when the test ends, and
// returns a client of it.
func startServeProcess(t *testing.T, args ...string) toolguardv1.ToolGuardServiceClient {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"serve", "--listen", "127.0.0.1:0", "--log-format", "json", "--log-level", "info"}, args...)...)
	cmd.Env = append(os.Environ(), serveChildEnv+"=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addrs := make(chan string, 1)
	var log safebuf.Buffer
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			var line struct{ Msg, Address string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "serving gRPC" {
				addrs <- line.Address
			} else if !strings.Contains(sc.Text(), `"msg":"finished call"`) {
				_, _ = log.Write(append(sc.Bytes(), '\n'))
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		stop := time.AfterFunc(30*time.Second, func() { _ = cmd.Process.Kill() })
		defer stop.Stop()
		<-drained
		if err := cmd.Wait(); err != nil {
			t.Errorf("serve %v: %v\n%s", args, err, log.String())
		}
	})
	var addr string
	select {
	case addr = <-addrs:
	case <-drained:
		t.Fatalf("serve %v exited before serving:\n%s", args, log.String())
	}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return toolguardv1.NewToolGuardServiceClient(conn)
}

func writeTestFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func tempsIn(t *testing.T, dir string) []string {
	t.Helper()
	var found []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".toolguard-tmp-") {
			found = append(found, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}
