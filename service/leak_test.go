package service_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/service"
	"github.com/toolguard/toolguard/service/servicetest"
)

// verifyNoLeaks fails the test if goroutines other than those opts ignore
// are still running once they have had time to end. goleak.Find retries
// for about half a second; this waits, boundedly, for longer, since a
// loaded machine under -race can take longer to unwind many streams.
func verifyNoLeaks(t *testing.T, opts ...goleak.Option) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := goleak.Find(opts...)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("goroutines left behind: %v", err)
			return
		}
	}
}

// TestStreamCancelLeak opens many streams on a long-lived connection and
// abandons them midway, in every way a client can, and checks with goleak
// that nothing they started on either side outlives them: the server's
// handlers return, the stream slots come back, and the server still serves.
//
// MaxStreams is the number of streams each step opens at once, so a slot
// that was not given back would make a later step fail.
func TestStreamCancelLeak(t *testing.T) {
	const streams = 48
	conn, cfg := servicetest.Start(t, service.Config{MaxStreams: streams, LogLevel: "warn"})
	c := toolguardv1.NewToolGuardServiceClient(conn)
	ws := cfg.Workspace

	// Warm the connection and every path the steps use, so that whatever
	// is started once per connection or lazily per server is running
	// before the snapshot.
	if _, err := streamRun(t, c, append(append([]*toolguardv1.StreamToolCallsRequest{startFrame("warm", toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS, &toolguardv1.StreamOptions{ExecuteOnComplete: true})},
		textFrames("<write_to_file><path>warm.txt</path><content>warm</content></write_to_file>", 16)...), endFrame("stop"))); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecuteWrite(context.Background(), &toolguardv1.ExecuteWriteRequest{Context: &toolguardv1.RequestContext{SessionId: "warm"},
		Call: jsonCall(t, "write_to_file", map[string]any{"path": "warm.txt", "content": "warm again"})}); err != nil {
		t.Fatal(err)
	}
	ignore := goleak.IgnoreCurrent()

	big := strings.Repeat("x", 20_000)
	// openPartial opens a stream, sends a start frame and part of a call
	// (alternately an XML-tags text call and an OpenAI tool-call delta),
	// and waits for the first event, so the server's handler is running
	// and holds a stream slot.
	openPartial := func(ctx context.Context, i int) toolguardv1.ToolGuardService_StreamToolCallsClient {
		t.Helper()
		st, err := c.StreamToolCalls(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var frames []*toolguardv1.StreamToolCallsRequest
		if i%2 == 0 {
			frames = append([]*toolguardv1.StreamToolCallsRequest{startFrame(fmt.Sprintf("partial-%d", i), toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS, nil)},
				textFrames(fmt.Sprintf("Writing.<write_to_file><path>p%d.txt</path><content>%s", i, big), 1000)...)
		} else {
			frames = append([]*toolguardv1.StreamToolCallsRequest{startFrame(fmt.Sprintf("partial-%d", i), toolguardv1.StreamFormat_STREAM_FORMAT_OPENAI, &toolguardv1.StreamOptions{ExecuteOnComplete: true})},
				argFrames(0, "call_1", "write_to_file", fmt.Sprintf(`{"path": "p%d.txt", "content": "%s`, i, big), 1000)...)
		}
		for _, f := range frames {
			if err := st.Send(f); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := st.Recv(); err != nil {
			t.Fatalf("stream %d: %v", i, err)
		}
		return st
	}

	t.Run("cancel mid-stream", func(t *testing.T) {
		cancels := make([]context.CancelFunc, streams)
		for i := range streams {
			ctx, cancel := context.WithCancel(context.Background())
			cancels[i] = cancel
			openPartial(ctx, i)
		}
		for _, cancel := range cancels {
			cancel()
		}
		verifyNoLeaks(t, ignore)
	})

	t.Run("cancel after close send", func(t *testing.T) {
		cancels := make([]context.CancelFunc, streams)
		for i := range streams {
			ctx, cancel := context.WithCancel(context.Background())
			cancels[i] = cancel
			if err := openPartial(ctx, i).CloseSend(); err != nil {
				t.Fatal(err)
			}
		}
		for _, cancel := range cancels {
			cancel()
		}
		verifyNoLeaks(t, ignore)
	})

	t.Run("cancel during execution", func(t *testing.T) {
		cancelDuringExecution(t, c, ws, 8)
		verifyNoLeaks(t, ignore)
		if n := countTemps(t, ws); n != 0 {
			t.Errorf("%d temporary files left by cancelled executions", n)
		}
	})

	// Dropped streams: neither cancelled nor closed. gRPC keeps such a
	// stream, and the server's handler waiting on it, until the connection
	// closes; closing it must end them all. This step runs last on conn.
	for i := range streams {
		openPartial(context.Background(), i)
	}
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	verifyNoLeaks(t, ignore)

	// The server still serves, with every stream slot back: MaxStreams
	// streams at once on a new connection, each to the end.
	conn2, err := grpc.NewClient(cfg.Listen, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	c2 := toolguardv1.NewToolGuardServiceClient(conn2)
	var wg sync.WaitGroup
	errs := make(chan error, streams)
	opened := make(chan struct{}, streams)
	all := make(chan struct{})
	for i := range streams {
		wg.Go(func() {
			errs <- fullStream(c2, i, opened, all)
		})
	}
	for range streams {
		<-opened
	}
	close(all)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	resp, err := c2.ExecuteWrite(context.Background(), &toolguardv1.ExecuteWriteRequest{Context: &toolguardv1.RequestContext{SessionId: "after"},
		Call: jsonCall(t, "write_to_file", map[string]any{"path": "after.txt", "content": "after"})})
	if err != nil || !resp.GetVerdict().GetOk() || readFile(t, filepath.Join(ws, "after.txt")) != "after" {
		t.Errorf("ExecuteWrite after the cancellations: %v %v", err, resp.GetVerdict())
	}
	if err := conn2.Close(); err != nil {
		t.Fatal(err)
	}
	verifyNoLeaks(t, ignore)
}

// fullStream runs one stream to its end: it reports on opened once its
// handler runs (its first event is in), and finishes once all is closed,
// so that all the streams are open at the same time.
func fullStream(c toolguardv1.ToolGuardServiceClient, i int, opened chan<- struct{}, all <-chan struct{}) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	report := sync.OnceFunc(func() { opened <- struct{}{} })
	defer report()
	st, err := c.StreamToolCalls(ctx)
	if err != nil {
		return err
	}
	if err := st.Send(startFrame(fmt.Sprintf("full-%d", i), toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS, nil)); err != nil {
		return err
	}
	if err := st.Send(textFrames("Hello.", 100)[0]); err != nil {
		return err
	}
	if _, err := st.Recv(); err != nil {
		return fmt.Errorf("stream %d: %w", i, err)
	}
	report()
	<-all
	if err := st.Send(endFrame("stop")); err != nil {
		return err
	}
	if err := st.CloseSend(); err != nil {
		return err
	}
	done := false
	for {
		ev, err := st.Recv()
		if errors.Is(err, io.EOF) {
			if !done {
				return fmt.Errorf("stream %d: no done event", i)
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("stream %d: %w", i, err)
		}
		done = done || ev.GetDone() != nil
	}
}

// cancelDuringExecution runs n large writes at once (streams with
// execute_on_complete, and every fourth an ExecuteWrite) and cancels each
// client as soon as its write is under way on the server: when the
// temporary file appears in the target's directory, or the target itself
// if the write was too quick to see. The write then completes or not;
// the file must be whole either way.
func cancelDuringExecution(t *testing.T, c toolguardv1.ToolGuardServiceClient, ws string, n int) {
	content := strings.Repeat("0123456789abcdef\n", (1<<20)/17) // ~1 MiB
	var mu sync.Mutex
	caught := 0
	var wg sync.WaitGroup
	for i := range n {
		rel := fmt.Sprintf("big/%d/file.txt", i)
		if err := os.MkdirAll(filepath.Join(ws, filepath.Dir(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{}) // the client call has returned
		if i%4 == 3 {
			wg.Go(func() {
				defer close(done)
				_, _ = c.ExecuteWrite(ctx, &toolguardv1.ExecuteWriteRequest{Context: &toolguardv1.RequestContext{SessionId: fmt.Sprintf("exec-%d", i)},
					Call: stringCall("write_to_file", map[string]string{"path": rel, "content": content})})
			})
		} else {
			st, err := c.StreamToolCalls(ctx)
			if err != nil {
				t.Fatal(err)
			}
			args, err := json.Marshal(map[string]string{"path": rel, "content": content})
			if err != nil {
				t.Fatal(err)
			}
			frames := append(append([]*toolguardv1.StreamToolCallsRequest{startFrame(fmt.Sprintf("exec-%d", i), toolguardv1.StreamFormat_STREAM_FORMAT_OPENAI, &toolguardv1.StreamOptions{ExecuteOnComplete: true})},
				argFrames(0, "call_1", "write_to_file", string(args), 256<<10)...), endFrame("tool_calls"))
			wg.Go(func() { // the frames, then no CloseSend: the client just goes
				for _, f := range frames {
					if st.Send(f) != nil {
						return
					}
				}
			})
			wg.Go(func() { // the previews, until the cancellation
				defer close(done)
				for {
					if _, err := st.Recv(); err != nil {
						return
					}
				}
			})
		}
		wg.Go(func() {
			defer cancel()
			dir := filepath.Join(ws, filepath.Dir(rel))
			deadline := time.Now().Add(time.Minute) // a bounded wait for the write to start
			for time.Now().Before(deadline) {
				select {
				case <-done:
					return // the call ended on its own
				default:
				}
				ents, err := os.ReadDir(dir)
				if err != nil {
					t.Error(err)
					return
				}
				for _, e := range ents {
					if strings.HasPrefix(e.Name(), workspaceTempPrefix) {
						mu.Lock()
						caught++
						mu.Unlock()
						return
					}
					if e.Name() == "file.txt" {
						return
					}
				}
				time.Sleep(50 * time.Microsecond)
			}
			t.Errorf("%s: the write did not start", rel)
		})
	}
	wg.Wait()
	t.Logf("%d of %d clients cancelled while the server was writing the file", caught, n)
	for i := range n {
		data, err := os.ReadFile(filepath.Join(ws, fmt.Sprintf("big/%d/file.txt", i)))
		if err == nil && string(data) != content {
			t.Errorf("big/%d/file.txt: %d bytes, want nothing or all %d", i, len(data), len(content))
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Error(err)
		}
	}
}

// workspaceTempPrefix is workspace.tempPrefix: the start of the names of
// the temporary files a write creates before renaming them into place.
const workspaceTempPrefix = ".toolguard-tmp-"

// stringCall is jsonCall for goroutines other than the test's, which must
// not call t.Fatal: string arguments always marshal.
func stringCall(name string, args map[string]string) *toolguardv1.ToolCall {
	raw, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	return textCall(name, string(raw))
}

// countTemps counts toolguard's temporary files under dir.
func countTemps(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), workspaceTempPrefix) {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
