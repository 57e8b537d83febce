//go:build unix

package service_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/internal/safebuf"
	"github.com/toolguard/toolguard/observe"
	"github.com/toolguard/toolguard/service"
	"github.com/toolguard/toolguard/workspace"
)

// These tests kill a real toolguard server process with SIGKILL while it is
// writing and editing files for gRPC clients, and check that no file is ever
// torn and that every write a client saw acknowledged is on disk.

const (
	// serverCrashDirEnv makes TestServerCrashChild serve the workspace it
	// names; the parent test sets it.
	serverCrashDirEnv = "TOOLGUARD_SERVER_CRASH_CHILD_DIR"
	// serverCrashAddrPrefix starts the line on which the child reports its
	// address.
	serverCrashAddrPrefix = "toolguard crash child serving on "
)

// The files of the crash test. Each write goroutine owns one file of
// crashWriteFiles and also writes crashSharedFile, which they all write
// concurrently; each edit goroutine owns one of crashEditFiles; the stream
// goroutine owns crashStreamFile.
var (
	crashWriteFiles = []string{"w/0.txt", "w/1.txt", "w/deep/2.txt"}
	crashSharedFile = "shared.txt"
	crashEditFiles  = []string{"e/0.txt", "e/1.txt"}
	crashStreamFile = "s/stream.txt"
)

// crashEditBlocks is the number of blocks (lines) of an edit file.
const crashEditBlocks = 4

// crashWriteContent is a self-verifying file body: a header line with the
// writer, sequence number, length and SHA-256 of the body that follows;
// random size from a few bytes to ~1 MiB. The writer and sequence make
// every content sent unique.
func crashWriteContent(writer string, seq int, maxLines int, r *rand.Rand) string {
	body := strings.Repeat(fmt.Sprintf("%s %d\n", writer, seq), 1+r.IntN(maxLines))
	sum := sha256.Sum256([]byte(body))
	return fmt.Sprintf("writer=%s seq=%d len=%d sha=%s\n", writer, seq, len(body), hex.EncodeToString(sum[:])) + body
}

func verifyWriteContent(data []byte) error {
	header, body, ok := bytes.Cut(data, []byte("\n"))
	if !ok {
		return fmt.Errorf("no header in %d bytes", len(data))
	}
	var writer, want string
	var seq, n int
	if _, err := fmt.Sscanf(string(header), "writer=%s seq=%d len=%d sha=%s", &writer, &seq, &n, &want); err != nil {
		return fmt.Errorf("header %q: %v", header, err)
	}
	sum := sha256.Sum256(body)
	if len(body) != n || hex.EncodeToString(sum[:]) != want {
		return fmt.Errorf("torn file: header says %d bytes, body has %d bytes (sha %x, want %.8s)", n, len(body), sum[:4], want)
	}
	return nil
}

// crashEditLine is one block of an edit file: a line that verifies itself
// (block number, who wrote it, length and SHA-256 of its payload). An edit
// replaces one whole line with a new one, so every state of the file,
// before or after any edit, is crashEditBlocks such lines in block order.
func crashEditLine(block int, writer string, seq int, r *rand.Rand) string {
	payload := strings.Repeat(fmt.Sprintf("%s.%d ", writer, seq), 1+r.IntN(10_000)) // up to ~100 KiB
	sum := sha256.Sum256([]byte(payload))
	return fmt.Sprintf("blk=%d writer=%s seq=%d len=%d sha=%s |%s\n", block, writer, seq, len(payload), hex.EncodeToString(sum[:]), payload)
}

func verifyEditContent(data []byte) error {
	lines := strings.SplitAfter(string(data), "\n")
	if lines[len(lines)-1] != "" {
		return fmt.Errorf("torn file: last line of %d bytes has no newline", len(lines[len(lines)-1]))
	}
	lines = lines[:len(lines)-1]
	if len(lines) != crashEditBlocks {
		return fmt.Errorf("torn file: %d lines, want %d", len(lines), crashEditBlocks)
	}
	for i, line := range lines {
		head, payload, ok := strings.Cut(strings.TrimSuffix(line, "\n"), " |")
		if !ok {
			return fmt.Errorf("line %d: no payload separator", i)
		}
		var block, seq, n int
		var writer, want string
		if _, err := fmt.Sscanf(head, "blk=%d writer=%s seq=%d len=%d sha=%s", &block, &writer, &seq, &n, &want); err != nil {
			return fmt.Errorf("line %d: header %q: %v", i, head, err)
		}
		sum := sha256.Sum256([]byte(payload))
		if block != i || len(payload) != n || hex.EncodeToString(sum[:]) != want {
			return fmt.Errorf("torn line %d: block %d, %d payload bytes (header says %d)", i, block, len(payload), n)
		}
	}
	return nil
}

// crashVersion is one content sent for a file: its hash, and the logical
// times at which the request was sent and its response received (never,
// when it was not).
type crashVersion struct {
	sum        [32]byte
	start, ack uint64
}

// crashHistory records, per file, every content sent in a round, with a
// logical clock that orders sends and acknowledgements.
type crashHistory struct {
	clock atomic.Uint64
	mu    sync.Mutex
	files map[string][]*crashVersion
}

const notAcked = math.MaxUint64

// initial records what a file holds at the start of a round: acknowledged
// at time 0, so any write acknowledged in the round must replace it.
func (h *crashHistory) initial(name string, data []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.files[name] = []*crashVersion{{sum: sha256.Sum256(data)}}
}

// send records a content about to be sent; acked marks its response
// received.
func (h *crashHistory) send(name, content string) (acked func()) {
	v := &crashVersion{sum: sha256.Sum256([]byte(content)), start: h.clock.Add(1), ack: notAcked}
	h.mu.Lock()
	h.files[name] = append(h.files[name], v)
	h.mu.Unlock()
	return func() {
		t := h.clock.Add(1)
		h.mu.Lock()
		v.ack = t
		h.mu.Unlock()
	}
}

// check says whether data may be what the file holds after the kill: one
// of the contents sent for it (or its content at the start of the round),
// and not one that an acknowledged write sent after it had been
// acknowledged must have replaced. In-flight writes may or may not have
// happened; acknowledged ones must have.
func (h *crashHistory) check(name string, data []byte) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	sum := sha256.Sum256(data)
	var found *crashVersion
	for _, v := range h.files[name] {
		if v.sum == sum {
			found = v
		}
	}
	if found == nil {
		return fmt.Errorf("%d bytes (sha %x) that no request sent", len(data), sum[:4])
	}
	for _, v := range h.files[name] {
		if v != found && v.ack != notAcked && v.start > found.ack {
			return fmt.Errorf("an acknowledged write is lost: the file holds a content acknowledged at %d, overwritten by one sent at %d and acknowledged at %d", found.ack, v.start, v.ack)
		}
	}
	return nil
}

// TestServerCrashChild is the child side of TestServerCrashKill: it serves
// toolguard on a free loopback port over the workspace the parent names,
// prints the address, and serves until it is killed.
func TestServerCrashChild(t *testing.T) {
	dir := os.Getenv(serverCrashDirEnv)
	if dir == "" {
		return // only meaningful as TestServerCrashKill's child process
	}
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "crash child:", err)
		os.Exit(2)
	}
	// The parent holds our standard input open; if it dies without killing
	// us, we must not serve on forever.
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(3)
	}()
	cfg := service.DefaultConfig()
	cfg.Listen = "127.0.0.1:0"
	cfg.Workspace = dir
	cfg.LogLevel = "warn"
	// Four writers share a file; on a machine busy enough, one waits past
	// the default 10 s for another's durable write and is told to retry,
	// which is not what this test is about: the wait is a hang guard here.
	cfg.LockTimeout = 2 * time.Minute
	log, err := observe.NewLogger("console", cfg.LogLevel)
	if err != nil {
		fail(err)
	}
	lis, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		fail(err)
	}
	// New opens the workspace, which removes the temporary files the last
	// kill left behind.
	srv, err := service.New(cfg, log)
	if err != nil {
		fail(err)
	}
	fmt.Fprintf(os.Stdout, "%s%s\n", serverCrashAddrPrefix, lis.Addr())
	fail(fmt.Errorf("serve returned: %v", srv.Serve(context.Background(), lis)))
}

// TestServerCrashKill runs toolguard in a child process and, while clients
// write and edit files through it from several goroutines (ExecuteWrite of
// self-verifying contents of up to ~1 MiB, ExecuteEdit replacing whole
// self-verifying lines, and a StreamToolCalls with execute_on_complete),
// kills it with SIGKILL after a random number of acknowledged writes plus a
// random delay. Then every file must be whole, must be one of the contents
// sent for it, and must not predate a write whose response the client
// received. Each round's new server must have removed the previous kill's
// temporary files before serving, and at the end a fresh in-process server
// on the workspace serves writes and edits.
func TestServerCrashKill(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	seed1, seed2 := rand.Uint64(), rand.Uint64()
	t.Logf("seed %d %d", seed1, seed2)
	r := rand.New(rand.NewPCG(seed1, seed2))

	for _, name := range crashWriteFiles {
		writeCrashFile(t, dir, name, crashWriteContent("init", 0, 1000, r))
	}
	writeCrashFile(t, dir, crashSharedFile, crashWriteContent("init", 0, 1000, r))
	writeCrashFile(t, dir, crashStreamFile, crashWriteContent("init", 0, 1000, r))
	for _, name := range crashEditFiles {
		var b strings.Builder
		for i := range crashEditBlocks {
			b.WriteString(crashEditLine(i, "init", 0, r))
		}
		writeCrashFile(t, dir, name, b.String())
	}

	const rounds = 10
	var acked, leftovers int
	for round := range rounds {
		a, l := serverCrashRound(t, dir, round, r)
		acked += a
		leftovers += l
	}
	t.Logf("%d rounds, %d kills: %d writes acknowledged before the kills, %d temporary files left by the kills", rounds, rounds, acked, leftovers)

	// A fresh server on the same workspace, later: it cleans up and serves.
	// A half-written temporary file, as a kill leaves, makes sure there is
	// something to clean even if the last kill left nothing. Only files
	// older than workspace.DefaultCleanupMinAge go, so the leftovers are
	// aged, and one fresh file, as another server's write in progress on a
	// shared volume would be, must stay.
	writeCrashFile(t, dir, "w/deep/"+workspaceTempPrefix+"8000000000000001", crashWriteContent("torn", 0, 1000, r)[:100])
	ageTemps(t, dir, workspace.DefaultCleanupMinAge+time.Minute)
	inProgress := filepath.Join(dir, "w", workspaceTempPrefix+"8000000000000002")
	writeCrashFile(t, dir, "w/"+filepath.Base(inProgress), "another server's write")
	c, _ := startWorkspace(t, service.Config{Config: guard.Config{Workspace: dir}})
	if n := countTemps(t, dir); n != 1 {
		t.Errorf("%d temporary files remain after a fresh server opened the workspace, want the fresh one alone", n)
	}
	if _, err := os.Stat(inProgress); err != nil {
		t.Errorf("the fresh temporary file was removed: %v", err)
	}
	content := crashWriteContent("fresh", 0, 1000, r)
	resp, err := c.ExecuteWrite(context.Background(), &toolguardv1.ExecuteWriteRequest{Context: &toolguardv1.RequestContext{SessionId: "fresh"},
		Call: jsonCall(t, "write_to_file", map[string]any{"path": crashSharedFile, "content": content})})
	if err != nil || !resp.GetVerdict().GetOk() || readFile(t, filepath.Join(dir, crashSharedFile)) != content {
		t.Errorf("write after the crashes: %v %v", err, resp.GetVerdict())
	}
	old := strings.SplitAfter(readFile(t, filepath.Join(dir, crashEditFiles[0])), "\n")[1]
	er, err := c.ExecuteEdit(context.Background(), &toolguardv1.ExecuteEditRequest{Context: &toolguardv1.RequestContext{SessionId: "fresh"},
		Call: jsonCall(t, "edit", map[string]any{"path": crashEditFiles[0], "old_text": strings.TrimSuffix(old, "\n"), "new_text": strings.TrimSuffix(crashEditLine(1, "fresh", 0, r), "\n")})})
	if err != nil || !er.GetApplied() {
		t.Errorf("edit after the crashes: %v %v", err, er.GetVerdict())
	}
	if err := verifyEditContent([]byte(readFile(t, filepath.Join(dir, crashEditFiles[0])))); err != nil {
		t.Errorf("%s after an edit by the fresh server: %v", crashEditFiles[0], err)
	}
}

// ageTemps sets the times of toolguard's temporary files under dir to age
// ago.
func ageTemps(t *testing.T, dir string, age time.Duration) {
	t.Helper()
	then := time.Now().Add(-age)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && strings.HasPrefix(d.Name(), workspaceTempPrefix) {
			err = os.Chtimes(p, then, then)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// serverCrashRound runs one round: start the child, write through it, kill
// it, check the files. It returns the writes acknowledged and the temporary
// files the kill left.
func serverCrashRound(t *testing.T, dir string, round int, r *rand.Rand) (acked, leftovers int) {
	// The last kill's leftovers, as a restart finds them once they are old
	// enough to be removed (no other server shares this workspace).
	ageTemps(t, dir, workspace.DefaultCleanupMinAge+time.Minute)
	cmd := exec.Command(os.Args[0], "-test.run=^TestServerCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), serverCrashDirEnv+"="+dir)
	var stderr safebuf.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := false
	defer func() {
		if !waited {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	// A bounded wait for the child to start serving.
	startup := time.AfterFunc(2*time.Minute, func() { _ = cmd.Process.Kill() })
	addr := ""
	sc := bufio.NewScanner(out)
	for addr == "" && sc.Scan() {
		addr, _ = strings.CutPrefix(sc.Text(), serverCrashAddrPrefix)
	}
	startup.Stop()
	if addr == "" {
		t.Fatalf("round %d: the child did not report its address: %s", round, stderr.String())
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()

	// Open cleaned up what the last kill left.
	if n := countTemps(t, dir); n != 0 {
		t.Fatalf("round %d: %d temporary files remain after the server opened the workspace", round, n)
	}
	h := &crashHistory{files: map[string][]*crashVersion{}}
	all := append(append([]string{crashSharedFile, crashStreamFile}, crashWriteFiles...), crashEditFiles...)
	state := map[string]string{}
	for _, name := range all {
		data := readFile(t, filepath.Join(dir, name))
		h.initial(name, []byte(data))
		state[name] = data
	}

	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20)))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c := toolguardv1.NewToolGuardServiceClient(conn)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var killed atomic.Bool
	acks := make(chan struct{}, 1<<16)
	failures := make(chan string, 64)
	var wg sync.WaitGroup
	// worker runs step until it fails; a failure after the kill is expected.
	// byKind counts the acknowledged ExecuteWrite, ExecuteEdit and stream
	// writes, for the log.
	var byKind [3]atomic.Int64
	worker := func(name string, kind int, seed uint64, step func(r *rand.Rand, seq int) (string, error)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(round)))
			for seq := 1; ; seq++ {
				what, err := step(r, seq)
				if err != nil {
					if !killed.Load() {
						failures <- fmt.Sprintf("%s: %s: %v", name, what, err)
					}
					return
				}
				byKind[kind].Add(1)
				acks <- struct{}{}
			}
		}()
	}
	for i, name := range crashWriteFiles {
		writer := fmt.Sprintf("r%dw%d", round, i)
		worker(writer, 0, r.Uint64(), func(r *rand.Rand, seq int) (string, error) {
			target := name
			if r.IntN(3) == 0 {
				target = crashSharedFile
			}
			content := crashWriteContent(writer, seq, 75_000, r) // up to ~1 MiB
			ack := h.send(target, content)
			resp, err := c.ExecuteWrite(ctx, &toolguardv1.ExecuteWriteRequest{Context: &toolguardv1.RequestContext{SessionId: writer},
				Call: stringCall("write_to_file", map[string]string{"path": target, "content": content})})
			what := fmt.Sprintf("ExecuteWrite %s seq %d", target, seq)
			if err != nil {
				return what, err
			}
			ack()
			if !resp.GetVerdict().GetOk() || resp.GetChange().GetSha256() != sha(content) {
				return what, fmt.Errorf("verdict %v, change %v", resp.GetVerdict(), resp.GetChange())
			}
			return what, nil
		})
	}
	for i, name := range crashEditFiles {
		writer := fmt.Sprintf("r%de%d", round, i)
		cur := state[name]
		worker(writer, 1, r.Uint64(), func(r *rand.Rand, seq int) (string, error) {
			block := r.IntN(crashEditBlocks)
			old := strings.SplitAfter(cur, "\n")[block]
			line := crashEditLine(block, writer, seq, r)
			next := strings.Replace(cur, old, line, 1)
			ack := h.send(name, next)
			resp, err := c.ExecuteEdit(ctx, &toolguardv1.ExecuteEditRequest{Context: &toolguardv1.RequestContext{SessionId: writer},
				Call: stringCall("edit", map[string]string{"path": name, "old_text": strings.TrimSuffix(old, "\n"), "new_text": strings.TrimSuffix(line, "\n")})})
			what := fmt.Sprintf("ExecuteEdit %s seq %d block %d", name, seq, block)
			if err != nil {
				return what, err
			}
			ack()
			if !resp.GetVerdict().GetOk() || !resp.GetApplied() || len(resp.GetChanges()) != 1 || resp.GetChanges()[0].GetSha256() != sha(next) {
				return what, fmt.Errorf("verdict %v, applied %v, changes %v", resp.GetVerdict(), resp.GetApplied(), resp.GetChanges())
			}
			cur = next
			return what, nil
		})
	}
	streamer := fmt.Sprintf("r%ds", round)
	worker(streamer, 2, r.Uint64(), func(r *rand.Rand, seq int) (string, error) {
		content := crashWriteContent(streamer, seq, 30_000, r) // up to ~400 KiB
		what := fmt.Sprintf("StreamToolCalls %s seq %d", crashStreamFile, seq)
		return what, crashStreamWrite(ctx, c, streamer, crashStreamFile, content, h)
	})

	// The kill point: after a random number of acknowledged writes (0 kills
	// during the first ones), plus a random delay of up to 20 ms. The delay
	// is the test's random input, not a wait for anything: no outcome
	// depends on timing.
	target := r.IntN(16)
	deadline := time.After(2 * time.Minute) // a bounded wait for the acknowledgements
	for n := 0; n < target; n++ {
		select {
		case <-acks:
		case f := <-failures:
			t.Fatalf("round %d: before the kill: %s; child: %s", round, f, stderr.String())
		case <-deadline:
			t.Fatalf("round %d: only %d of %d writes acknowledged; child: %s", round, n, target, stderr.String())
		}
	}
	time.Sleep(time.Duration(r.IntN(20_000)) * time.Microsecond)
	killed.Store(true)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	waited = true
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
		t.Fatalf("round %d: child was not killed (%v): %s", round, err, stderr.String())
	}
	cancel()
	_ = conn.Close()
	wg.Wait()
	close(failures)
	for f := range failures {
		t.Errorf("round %d: %s", round, f)
	}
	acked = target + len(acks)

	for _, name := range all {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("round %d: %s: %v", round, name, err)
		}
		verify := verifyWriteContent
		if strings.HasPrefix(name, "e/") {
			verify = verifyEditContent
		}
		if err := verify(data); err != nil {
			t.Fatalf("round %d: %s: %v", round, name, err)
		}
		if err := h.check(name, data); err != nil {
			t.Fatalf("round %d: %s: %v", round, name, err)
		}
	}
	leftovers = countTemps(t, dir)
	t.Logf("round %d: killed after %d acknowledged writes (%d in all: %d ExecuteWrite, %d ExecuteEdit, %d streamed), %d temporary files left",
		round, target, acked, byKind[0].Load(), byKind[1].Load(), byKind[2].Load(), leftovers)
	return acked, leftovers
}

// crashStreamWrite writes content to name through StreamToolCalls with
// execute_on_complete, as an OpenAI-style streamed write_to_file call.
func crashStreamWrite(ctx context.Context, c toolguardv1.ToolGuardServiceClient, session, name, content string, h *crashHistory) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := c.StreamToolCalls(ctx)
	if err != nil {
		return err
	}
	args, err := json.Marshal(map[string]string{"path": name, "content": content})
	if err != nil {
		return err
	}
	frames := append(append([]*toolguardv1.StreamToolCallsRequest{startFrame(session, toolguardv1.StreamFormat_STREAM_FORMAT_OPENAI, &toolguardv1.StreamOptions{ExecuteOnComplete: true})},
		argFrames(0, "call_1", "write_to_file", string(args), 64<<10)...), endFrame("tool_calls"))
	ack := h.send(name, content)
	sendErr := make(chan error, 1)
	go func() { // send while receiving: the server streams previews back
		for _, f := range frames {
			if err := st.Send(f); err != nil {
				sendErr <- err
				return
			}
		}
		sendErr <- st.CloseSend()
	}()
	defer func() {
		cancel()
		<-sendErr
	}()
	applied := false
	for {
		ev, err := st.Recv()
		if errors.Is(err, io.EOF) {
			if !applied {
				return errors.New("the stream ended without executing the call")
			}
			return nil
		}
		if err != nil {
			cancel()
			return err
		}
		if cc := ev.GetCallComplete(); cc != nil {
			if !cc.GetVerdict().GetOk() || !cc.GetExecution().GetApplied() {
				cancel()
				return fmt.Errorf("call complete: verdict %v, execution %v", cc.GetVerdict(), cc.GetExecution())
			}
			ack()
			applied = true
			if ch := cc.GetExecution().GetChanges(); len(ch) != 1 || ch[0].GetSha256() != sha(content) {
				cancel()
				return fmt.Errorf("changes %v", ch)
			}
		}
	}
}

func writeCrashFile(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
