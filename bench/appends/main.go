// Command appends checks that no change is lost, torn or applied twice
// while replicas are killed: it sends appends (edits adding one unique line
// to one of a few files), each with its own idempotency key, and retries a
// call against the next replica on any transport error, UNAVAILABLE or
// ABORTED until it is answered. At the end it reads the files from the
// shared workspace and checks that every acknowledged append is there
// exactly once, and that each caller's session count is exact on every
// replica. scripts/load-replicas-kill.sh runs it against three replicas it
// kills and restarts.
//
//	go run ./bench/appends -addr 127.0.0.1:7701,127.0.0.1:7702 -workspace /srv/ws -appends 2000
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
)

// marker ends every file; an append replaces it with its line and the
// marker, so each edit is one read-modify-write of the whole file.
const marker = "=END=\n"

// lineRE is an append's whole line: anything else in a file is torn.
var lineRE = regexp.MustCompile(`^append ([0-9]+) x{40}$`)

func main() {
	addr := flag.String("addr", "", "replica `addresses` (loopback), comma-separated")
	workspace := flag.String("workspace", "", "the replicas' shared workspace `directory`, read at the end")
	appends := flag.Int("appends", 2000, "`number` of appends")
	files := flag.Int("files", 4, "`number` of files the appends share")
	concurrency := flag.Int("concurrency", 8, "concurrent callers")
	callTimeout := flag.Duration("call-timeout", 5*time.Second, "bound on one attempt")
	sha := flag.Bool("sha", false, "read the file first and send its hash as expected_sha256, and a key per (append, hash): closes the window a killed replica leaves between a change and the keeping of its answer")
	maxTime := flag.Duration("max-time", 5*time.Minute, "stop after this `duration`")
	flag.Parse()
	if err := run(*addr, *workspace, *appends, *files, *concurrency, *callTimeout, *maxTime, *sha); err != nil {
		fmt.Fprintln(os.Stderr, "appends:", err)
		os.Exit(1)
	}
}

func fileName(i int) string { return fmt.Sprintf("appends/file-%d.txt", i) }

func line(n int) string { return fmt.Sprintf("append %d %s", n, strings.Repeat("x", 40)) }

// tally is what the callers saw.
type tally struct {
	acked, retries, refused atomic.Int64
	changed, found          atomic.Int64 // -sha: FILE_CHANGED answers, lines found applied
	mu                      sync.Mutex
	firstRefusal            string
	byCode                  map[string]int
}

func (t *tally) retry(err error) {
	t.retries.Add(1)
	t.mu.Lock()
	t.byCode[status.Code(err).String()]++
	t.mu.Unlock()
}

func run(addr, workspace string, appends, files, concurrency int, callTimeout, maxTime time.Duration, sha bool) error {
	if workspace == "" || addr == "" {
		return errors.New("-addr and -workspace are required")
	}
	var clients []toolguardv1.ToolGuardServiceClient
	for _, a := range strings.Split(addr, ",") {
		if !strings.HasPrefix(a, "127.") && !strings.HasPrefix(a, "localhost:") {
			return fmt.Errorf("address %s is not loopback: the run only targets local servers", a)
		}
		// A killed replica comes back within seconds: reconnect quickly
		// rather than after gRPC's default back-off of up to two minutes.
		conn, err := grpc.NewClient(a, grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithConnectParams(grpc.ConnectParams{Backoff: backoff.Config{
				BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, MaxDelay: time.Second}}))
		if err != nil {
			return err
		}
		defer func() { _ = conn.Close() }()
		clients = append(clients, toolguardv1.NewToolGuardServiceClient(conn))
	}
	ctx, cancel := context.WithTimeout(context.Background(), maxTime)
	defer cancel()
	if err := seed(ctx, clients, files, callTimeout); err != nil {
		return err
	}

	t := &tally{byCode: map[string]int{}}
	acked := make([]bool, appends)
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				n := int(next.Add(1)) - 1
				if n >= appends || ctx.Err() != nil {
					return
				}
				if sha {
					acked[n] = appendChecked(ctx, clients, t, w, n, files, callTimeout)
				} else {
					acked[n] = appendOnce(ctx, clients, t, w, n, files, callTimeout)
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	countErr := checkCounts(ctx, clients, concurrency, callTimeout)
	return errors.Join(check(workspace, files, acked, t, elapsed), countErr)
}

// badCalls is how many unusable edits each caller's session gets at the end.
const badCalls = 3

// checkCounts sends each caller's session badCalls unusable edits (keyed,
// retried like the appends) and checks that the counts are exact: the
// answers report 1, 2, 3 consecutive mistakes, and every replica reads 3.
func checkCounts(ctx context.Context, clients []toolguardv1.ToolGuardServiceClient, callers int, callTimeout time.Duration) error {
	off := 0
	for w := 0; w < callers; w++ {
		session := fmt.Sprintf("appends-%d", w)
		for j := 1; j <= badCalls; j++ {
			req := &toolguardv1.ExecuteEditRequest{
				Context:        &toolguardv1.RequestContext{SessionId: session},
				Call:           &toolguardv1.ToolCall{Name: "edit", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: `{"path":"appends/file-0.txt"}`}},
				IdempotencyKey: fmt.Sprintf("bad-%d-%d", w, j),
			}
			for attempt := 0; ; attempt++ {
				actx, cancel := context.WithTimeout(ctx, callTimeout)
				resp, err := clients[(w+attempt)%len(clients)].ExecuteEdit(actx, req)
				cancel()
				if err == nil {
					if got := resp.GetVerdict().GetMistakes().GetConsecutive(); resp.GetVerdict().GetOk() || got != uint32(j) {
						off++
					}
					break
				}
				if !retryable(err) || ctx.Err() != nil {
					return fmt.Errorf("unusable edit %d of %s: %v", j, session, err)
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
		for _, c := range clients {
			actx, cancel := context.WithTimeout(ctx, callTimeout)
			resp, err := c.GetSession(actx, &toolguardv1.GetSessionRequest{SessionId: session})
			cancel()
			if err != nil {
				return fmt.Errorf("reading %s: %v", session, err)
			}
			if resp.GetSession().GetMistakes().GetConsecutive() != badCalls {
				off++
			}
		}
	}
	fmt.Printf("sessions %d, each %d mistakes: counts off %d\n", callers, badCalls, off)
	if off > 0 {
		return errors.New("FAILED: a session's count is off")
	}
	return nil
}

// seed writes each file's marker (a write with a key, retried like the appends).
func seed(ctx context.Context, clients []toolguardv1.ToolGuardServiceClient, files int, callTimeout time.Duration) error {
	for f := 0; f < files; f++ {
		args, _ := json.Marshal(map[string]string{"path": fileName(f), "content": marker})
		req := &toolguardv1.ExecuteWriteRequest{
			Context:        &toolguardv1.RequestContext{SessionId: "appends-seed"},
			Call:           &toolguardv1.ToolCall{Name: "write_to_file", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: string(args)}},
			IdempotencyKey: "seed-" + strconv.Itoa(f),
		}
		for attempt := 0; ; attempt++ {
			actx, cancel := context.WithTimeout(ctx, callTimeout)
			resp, err := clients[attempt%len(clients)].ExecuteWrite(actx, req)
			cancel()
			if err == nil && resp.GetVerdict().GetOk() {
				break
			}
			if ctx.Err() != nil || (err == nil) || !retryable(err) {
				return fmt.Errorf("seeding %s: %v %v", fileName(f), err, resp.GetVerdict().GetViolations())
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return nil
}

// retryable: the call may or may not have run, or was refused before
// running; the same key makes sending it again safe.
func retryable(err error) bool {
	switch status.Code(err) {
	case codes.Unavailable, codes.Aborted, codes.DeadlineExceeded, codes.Canceled, codes.Unknown, codes.Internal:
		return true
	}
	return false
}

// appendOnce sends append n until a replica answers it, moving to the next
// replica after each failed attempt. It reports whether it was acknowledged.
func appendOnce(ctx context.Context, clients []toolguardv1.ToolGuardServiceClient, t *tally, worker, n, files int, callTimeout time.Duration) bool {
	args, _ := json.Marshal(map[string]string{"path": fileName(n % files), "old_text": marker, "new_text": line(n) + "\n" + marker})
	req := &toolguardv1.ExecuteEditRequest{
		Context:        &toolguardv1.RequestContext{SessionId: fmt.Sprintf("appends-%d", worker)},
		Call:           &toolguardv1.ToolCall{Name: "edit", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: string(args)}},
		IdempotencyKey: "append-" + strconv.Itoa(n),
	}
	pause := 50 * time.Millisecond
	for attempt := 0; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, callTimeout)
		resp, err := clients[(n+attempt)%len(clients)].ExecuteEdit(actx, req)
		cancel()
		if err == nil {
			if resp.GetVerdict().GetOk() && resp.GetApplied() {
				t.acked.Add(1)
				return true
			}
			t.refuse(fmt.Sprintf("append %d: %v", n, resp.GetVerdict().GetViolations()))
			return false
		}
		if !retryable(err) || ctx.Err() != nil {
			t.refuse(fmt.Sprintf("append %d: %v", n, err))
			return false
		}
		t.retry(err)
		time.Sleep(pause)
		pause = min(2*pause, time.Second)
	}
}

// appendChecked sends append n with the hash of the file it read. A killed
// replica may have applied a call whose answer was never kept: the next
// attempt reads the file again, finds the line (acknowledged) or a new hash
// (a new key), and an edit expecting an old hash can no longer apply, since
// the files only grow. So each append applies at most once.
func appendChecked(ctx context.Context, clients []toolguardv1.ToolGuardServiceClient, t *tally, worker, n, files int, callTimeout time.Duration) bool {
	path := fileName(n % files)
	args, _ := json.Marshal(map[string]string{"path": path, "old_text": marker, "new_text": line(n) + "\n" + marker})
	session := &toolguardv1.RequestContext{SessionId: fmt.Sprintf("appends-%d", worker)}
	pause := 20 * time.Millisecond
	for attempt := 0; ; attempt++ {
		c := clients[(n+attempt)%len(clients)]
		actx, cancel := context.WithTimeout(ctx, callTimeout)
		read, err := c.ReadFile(actx, &toolguardv1.ReadFileRequest{Context: session, Path: path})
		if err == nil && (!read.GetVerdict().GetOk() || len(read.GetSha256()) < 16) {
			cancel()
			t.refuse(fmt.Sprintf("append %d: read refused: %v", n, read.GetVerdict().GetViolations()))
			return false
		}
		if err == nil && uint64(len(read.GetContent())) != read.GetSize() {
			err = status.Error(codes.OutOfRange, "the read was cut short")
		}
		var resp *toolguardv1.ExecuteEditResponse
		if err == nil && strings.Contains(read.GetContent(), line(n)+"\n") {
			cancel()
			t.acked.Add(1) // applied by an attempt whose answer was lost
			t.found.Add(1)
			return true
		}
		if err == nil {
			resp, err = c.ExecuteEdit(actx, &toolguardv1.ExecuteEditRequest{
				Context:        session,
				Call:           &toolguardv1.ToolCall{Name: "edit", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: string(args)}},
				ExpectedSha256: read.GetSha256(),
				IdempotencyKey: fmt.Sprintf("append-%d-%s", n, read.GetSha256()[:16]),
			})
		}
		cancel()
		switch {
		case err == nil && resp.GetVerdict().GetOk() && resp.GetApplied():
			t.acked.Add(1)
			return true
		case err == nil:
			t.refuse(fmt.Sprintf("append %d: %v", n, resp.GetVerdict().GetViolations()))
			return false
		case status.Code(err) == codes.FailedPrecondition: // another append came first
			t.changed.Add(1)
			continue
		case !retryable(err) || ctx.Err() != nil:
			t.refuse(fmt.Sprintf("append %d: %v", n, err))
			return false
		}
		t.retry(err)
		time.Sleep(pause)
		pause = min(2*pause, time.Second)
	}
}

func (t *tally) refuse(why string) {
	t.refused.Add(1)
	t.mu.Lock()
	if t.firstRefusal == "" {
		t.firstRefusal = why
	}
	t.mu.Unlock()
}

// check reads the files and counts each append's line.
func check(workspace string, files int, acked []bool, t *tally, elapsed time.Duration) error {
	seen := make([]int, len(acked))
	torn, markers := 0, 0
	for f := 0; f < files; f++ {
		data, err := os.ReadFile(filepath.Join(workspace, fileName(f)))
		if err != nil {
			return err
		}
		for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			if l+"\n" == marker {
				markers++
				continue
			}
			m := lineRE.FindStringSubmatch(l)
			n, err := 0, error(nil)
			if m != nil {
				n, err = strconv.Atoi(m[1])
			}
			if m == nil || err != nil || n >= len(seen) || n%files != f {
				torn++
				continue
			}
			seen[n]++
		}
		if !strings.HasSuffix(string(data), marker) {
			torn++
		}
	}
	lost, twice, unacked := 0, 0, 0
	for n, c := range seen {
		switch {
		case acked[n] && c == 0:
			lost++
		case c > 1:
			twice++
		case !acked[n] && c > 0:
			unacked++
		}
	}
	t.mu.Lock()
	codes := fmt.Sprint(t.byCode)
	t.mu.Unlock()
	fmt.Printf("appends %d acknowledged %d refused %d retries %d %s time %s\n",
		len(acked), t.acked.Load(), t.refused.Load(), t.retries.Load(), codes, elapsed.Round(time.Millisecond))
	fmt.Printf("file-changed %d found-applied %d\n", t.changed.Load(), t.found.Load())
	fmt.Printf("lost %d torn %d applied-twice %d applied-unacknowledged %d markers %d/%d\n",
		lost, torn, twice, unacked, markers, files)
	if t.firstRefusal != "" {
		fmt.Println("first refusal:", t.firstRefusal)
	}
	if lost+torn+twice > 0 || markers != files || t.refused.Load() > 0 || t.acked.Load() != int64(len(acked)) {
		return errors.New("FAILED: not every append is in its file exactly once")
	}
	return nil
}
