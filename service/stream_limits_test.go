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
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/service"
)

// These tests hold a real loopback server to the limits on streams: each
// principal's share of the stream slots, the idle timeout, and the memory
// budget of the calls streams hold.

// holdStream opens a stream in ctx and sends a start frame and some text;
// the text event coming back shows the server's handler runs and holds a
// stream slot. It returns the stream, or the refusal the server answered
// with instead.
func holdStream(t *testing.T, ctx context.Context, c toolguardv1.ToolGuardServiceClient) (toolguardv1.ToolGuardService_StreamToolCallsClient, error) {
	t.Helper()
	st, err := c.StreamToolCalls(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append([]*toolguardv1.StreamToolCallsRequest{startFrame("held", toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS, nil)}, textFrames("plain text\n", 100)...) {
		if err := st.Send(f); err != nil {
			break // refused: Recv says why
		}
	}
	ev, err := st.Recv()
	if err != nil {
		return nil, err
	}
	if ev.GetText() == nil {
		t.Fatalf("first event of a held stream: %v", ev)
	}
	return st, nil
}

// holdUntilRefused opens streams as p until the server refuses one, and
// returns how many it holds and the refusal. The streams stay open until
// the test ends.
func holdUntilRefused(t *testing.T, c toolguardv1.ToolGuardServiceClient, ctx context.Context, limit int) (int, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	for held := range limit + 1 {
		if _, err := holdStream(t, ctx, c); err != nil {
			return held, err
		}
	}
	t.Fatalf("%d streams held, none refused", limit+1)
	return 0, nil
}

func TestStreamsPerPrincipal(t *testing.T) {
	tests := []struct {
		name string
		cfg  service.Config
		auth bool
		// held is how many streams one principal holds before it is
		// refused with reason.
		held   int
		reason string
	}{
		{"three principals: a quarter each by default", service.Config{MaxStreams: 8}, true, 2, "TOO_MANY_STREAMS_FOR_PRINCIPAL"},
		{"an explicit share", service.Config{MaxStreams: 8, MaxStreamsPerPrincipal: 3}, true, 3, "TOO_MANY_STREAMS_FOR_PRINCIPAL"},
		{"a share of at least one", service.Config{MaxStreams: 3}, true, 1, "TOO_MANY_STREAMS_FOR_PRINCIPAL"},
		// Without a tokens file every caller is the one anonymous
		// principal: a share would only lower --max-streams.
		{"anonymous callers use every slot", service.Config{MaxStreams: 4}, false, 4, "TOO_MANY_STREAMS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c toolguardv1.ToolGuardServiceClient
			a, b := context.Background(), context.Background()
			if tt.auth {
				c, _, _ = startAuthenticated(t, tt.cfg)
				a, b = as(alice), as(bob)
			} else {
				c, _ = startWorkspace(t, tt.cfg)
			}
			held, err := holdUntilRefused(t, c, a, tt.cfg.MaxStreams)
			st := wantRefusal(t, "the stream after the share", err, codes.ResourceExhausted, tt.reason)
			if held != tt.held {
				t.Fatalf("%d streams held before the refusal, want %d (%v)", held, tt.held, st.Message())
			}
			if !tt.auth {
				return
			}
			// Another principal still gets a slot, and runs its stream to
			// the end.
			events, err := streamAs(b, c, startFrame("s", toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS, nil), endFrame("stop"))
			if err != nil || len(events) == 0 || events[len(events)-1].GetDone() == nil {
				t.Fatalf("bob's stream while alice holds her share: %v, %v", events, err)
			}
		})
	}
}

// drain receives until the stream ends and returns its events and status
// (nil at a clean end). It fails the test if the stream has not ended
// within 3 minutes: an idle stream must be ended, not left hanging. The
// bound only catches a hang: a 10 MiB stream under the race detector on a
// busy machine once took more than 20 seconds.
func drain(t *testing.T, st toolguardv1.ToolGuardService_StreamToolCallsClient, cancel context.CancelFunc) ([]*toolguardv1.StreamToolCallsResponse, error) {
	t.Helper()
	hung := time.AfterFunc(3*time.Minute, cancel) // ends as CANCELLED, never DEADLINE_EXCEEDED
	defer hung.Stop()
	var events []*toolguardv1.StreamToolCallsResponse
	for {
		ev, err := st.Recv()
		if errors.Is(err, io.EOF) {
			return events, nil
		}
		if err != nil {
			return events, err
		}
		events = append(events, ev)
	}
}

// TestStreamFramesKeepOpen: frames reset the idle timeout, so a stream that
// sends one within it stays open however long it lasts. The clock is the
// test's: after each frame it moves three quarters of the timeout, once the
// stream waits again, so the stream lasts many timeouts whatever the
// machine's speed.
func TestStreamFramesKeepOpen(t *testing.T) {
	t.Parallel()
	const idle = time.Minute
	clock := newFakeClock()
	c, _ := startWorkspace(t, service.WithIdleClock(service.Config{StreamIdleTimeout: idle}, clock))
	xml := toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS
	frames := []*toolguardv1.StreamToolCallsRequest{startFrame("busy", xml, nil)}
	for i := range 30 {
		frames = append(frames, textFrames(fmt.Sprintf("line %d\n", i), 100)...)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := c.StreamToolCalls(ctx)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for _, f := range frames {
			if st.Send(f) != nil {
				return
			}
			clock.advance(idle * 3 / 4)
		}
		_ = st.Send(endFrame("stop"))
	}()
	events, err := drain(t, st, cancel)
	if err != nil || len(events) == 0 || events[len(events)-1].GetDone() == nil {
		t.Fatalf("a stream sending a frame every %s of the test's clock: %v, %v", idle*3/4, events, err)
	}
}

func TestStreamIdleTimeout(t *testing.T) {
	const idle = time.Minute
	clock := newFakeClock()
	c, ws := startWorkspace(t, service.WithIdleClock(service.Config{MaxStreams: 1, StreamIdleTimeout: idle}, clock))
	xml := toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS
	if _, err := streamRun(t, c, []*toolguardv1.StreamToolCallsRequest{startFrame("warm", xml, nil), endFrame("stop")}); err != nil {
		t.Fatal(err)
	}
	ignore := goleak.IgnoreCurrent()

	t.Run("silent mid-call: ended, nothing executed or counted, slot freed", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		st, err := c.StreamToolCalls(ctx)
		if err != nil {
			t.Fatal(err)
		}
		frames := append([]*toolguardv1.StreamToolCallsRequest{startFrame("idle", xml, &toolguardv1.StreamOptions{ExecuteOnComplete: true})},
			textFrames("<write_to_file><path>idle.txt</path><content>abc", 10)...)
		for _, f := range frames {
			if err := st.Send(f); err != nil {
				t.Fatal(err)
			}
		}
		// Until the clock moves, the stream holds its slot.
		if _, err := st.Recv(); err != nil {
			t.Fatal(err)
		}
		_, err = streamAs(context.Background(), c, startFrame("other", xml, nil), endFrame("stop"))
		wantRefusal(t, "a second stream", err, codes.ResourceExhausted, "TOO_MANY_STREAMS")

		clock.advance(idle)
		events, err := drain(t, st, cancel)
		wantIdle(t, idle, err)
		for _, ev := range events {
			if ev.GetCallComplete() != nil || ev.GetDone() != nil {
				t.Errorf("the cut call was concluded: %v", ev)
			}
		}
		if _, err := os.Stat(filepath.Join(ws, "idle.txt")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the cut call was executed: %v", err)
		}
		r, err := c.GetSession(context.Background(), &toolguardv1.GetSessionRequest{SessionId: "idle"})
		if err != nil || r.GetSession().GetMistakes().GetConsecutive() != 0 {
			t.Errorf("session of the cut stream: %v, %v; want no mistake counted", r, err)
		}
		// The slot is free again.
		events, err = streamAs(context.Background(), c, startFrame("after", xml, nil), endFrame("stop"))
		if err != nil || len(events) == 0 || events[len(events)-1].GetDone() == nil {
			t.Fatalf("a stream after the cut: %v, %v", events, err)
		}
	})

	t.Run("no frame at all", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		st, err := c.StreamToolCalls(ctx)
		if err != nil {
			t.Fatal(err)
		}
		clock.advance(idle)
		_, err = drain(t, st, cancel)
		wantIdle(t, idle, err)
	})

	verifyNoLeaks(t, ignore)
}

// wantIdle checks err ends a stream for its idle timeout, and says which.
func wantIdle(t *testing.T, idle time.Duration, err error) {
	t.Helper()
	st := wantRefusal(t, "the idle stream", err, codes.DeadlineExceeded, "STREAM_IDLE_TIMEOUT")
	if !strings.Contains(st.Message(), idle.String()) {
		t.Errorf("message %q does not give the timeout", st.Message())
	}
}

// TestStreamIdleStalledClient: a client that sends frames but stops taking
// events is ended too, and its slot freed. It runs on the real clock, as the
// client's frames fill gRPC's windows; whether the server waited last on a
// send or a receive, the stream ends idle either way.
func TestStreamIdleStalledClient(t *testing.T) {
	const idle = 200 * time.Millisecond
	c, _ := startWorkspace(t, service.Config{MaxStreams: 1, StreamIdleTimeout: idle})
	xml := toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS
	if _, err := streamRun(t, c, []*toolguardv1.StreamToolCallsRequest{startFrame("warm", xml, nil), endFrame("stop")}); err != nil {
		t.Fatal(err)
	}
	ignore := goleak.IgnoreCurrent()
	t.Run("a client that stops taking events", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		st, err := c.StreamToolCalls(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// 48 MiB of text come back as text events, more than gRPC's windows
		// hold: the server's sends wait on the client, which goes on sending
		// frames (so it is never idle for want of them) but reads nothing.
		sending := make(chan struct{})
		go func() {
			defer close(sending)
			if st.Send(startFrame("stalled", xml, nil)) != nil || st.Send(textFrames("hello\n", 100)[0]) != nil {
				return
			}
			mib := textFrames(strings.Repeat("x", 1<<20), 1<<20)[0]
			for range 48 {
				if st.Send(mib) != nil {
					return
				}
			}
			for st.Send(&toolguardv1.StreamToolCallsRequest{Frame: &toolguardv1.StreamToolCallsRequest_Delta{Delta: &toolguardv1.StreamDelta{}}}) == nil {
				time.Sleep(idle / 4)
			}
		}()
		defer func() { cancel(); <-sending }()
		if _, err := st.Recv(); err != nil { // the one event read, "hello": the stream holds the slot
			t.Fatal(err)
		}

		// The server ends the stream and frees its slot at once; the
		// client learns it once it reads the events before the status.
		deadline := time.Now().Add(2 * time.Minute)
		for {
			_, err := streamAs(context.Background(), c, startFrame("next", xml, nil), endFrame("stop"))
			if err == nil {
				break
			}
			wantRefusal(t, "a stream while the stalled one holds the slot", err, codes.ResourceExhausted, "TOO_MANY_STREAMS")
			if time.Now().After(deadline) {
				t.Fatal("the stalled stream still holds its slot after 2 minutes")
			}
			time.Sleep(idle / 4)
		}
		_, err = drain(t, st, cancel)
		wantIdle(t, idle, err)
	})

	verifyNoLeaks(t, ignore)
}

// streamErrors returns the codes and messages of a stream's error events.
func streamErrors(events []*toolguardv1.StreamToolCallsResponse) (codes, messages []string) {
	for _, ev := range events {
		if e := ev.GetError(); e != nil {
			codes, messages = append(codes, e.GetCode()), append(messages, e.GetMessage())
		}
	}
	return codes, messages
}

func TestStreamBufferBudget(t *testing.T) {
	const budget = 8192
	c, _ := startWorkspace(t, service.Config{MaxStreamBufferBytes: budget, MaxCallBytes: budget})
	xml := toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS
	writeCall := func(session string, n int) []*toolguardv1.StreamToolCallsRequest {
		return append(append([]*toolguardv1.StreamToolCallsRequest{startFrame(session, xml, nil)},
			textFrames("<write_to_file><path>b.txt</path><content>"+strings.Repeat("b", n)+"</content></write_to_file>", 1000)...), endFrame("stop"))
	}

	// One stream holds 6000 bytes of an OpenAI call that stays open.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	held, err := c.StreamToolCalls(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append([]*toolguardv1.StreamToolCallsRequest{startFrame("held", toolguardv1.StreamFormat_STREAM_FORMAT_OPENAI, nil)},
		argFrames(0, "call_1", "write_to_file", `{"path": "a.txt", "content": "`+strings.Repeat("a", 6000), 1000)...) {
		if err := held.Send(f); err != nil {
			t.Fatal(err)
		}
	}
	for got := 0; got < 6000; { // its previews show the server has read it all
		ev, err := held.Recv()
		if err != nil {
			t.Fatal(err)
		}
		got += len(ev.GetParamUpdate().GetAppend())
	}

	// Another stream's call of 4000 bytes is more than the budget has left:
	// it is dropped, and that stream goes on to its end.
	events, err := streamRun(t, c, writeCall("refused", 4000))
	if err != nil {
		t.Fatal(err)
	}
	s := summarize(t, events)
	codes, messages := streamErrors(events)
	if !slices.Equal(codes, []string{"CALL_TOO_LARGE"}) || len(s.complete) != 0 || !strings.Contains(messages[0], "in use") {
		t.Fatalf("a call past the budget left: errors %v %q, %d calls completed", codes, messages, len(s.complete))
	}

	// The held stream goes without its end frame: what it held is given
	// back, and the same call fits.
	cancel()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		events, err := streamRun(t, c, writeCall("fits", 4000))
		if err != nil {
			t.Fatal(err)
		}
		if s := summarize(t, events); len(s.complete) == 1 && s.complete[0].GetVerdict().GetOk() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the budget of a cancelled stream was not given back: %v", events)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestStreamDefaultsHoldLargestWrite checks that the default limits, which
// fit the default pod's memory, still let a write of the largest file
// (MaxFileBytes) be streamed and executed.
func TestStreamDefaultsHoldLargestWrite(t *testing.T) {
	t.Parallel()
	def := service.DefaultConfig()
	c, ws := startWorkspace(t, service.Config{})
	content := strings.Repeat("x := f(y) // a line\n", int(def.MaxFileBytes)/20)
	args, err := json.Marshal(map[string]string{"path": "largest.go", "content": content})
	if err != nil {
		t.Fatal(err)
	}
	frames := append(append([]*toolguardv1.StreamToolCallsRequest{startFrame("largest", toolguardv1.StreamFormat_STREAM_FORMAT_OPENAI, &toolguardv1.StreamOptions{ExecuteOnComplete: true})},
		argFrames(0, "call_1", "write_to_file", string(args), 64<<10)...), endFrame("tool_calls"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The verdict holds the arguments, far more than a client's default
	// receive limit of 4 MiB.
	st, err := c.StreamToolCalls(ctx, grpc.MaxCallRecvMsgSize(def.MaxSendMsgBytes))
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for _, f := range frames {
			if st.Send(f) != nil {
				return
			}
		}
	}()
	events, err := drain(t, st, cancel)
	if err != nil {
		t.Fatal(err)
	}
	s := summarize(t, events)
	if codes, _ := streamErrors(events); len(codes) != 0 || len(s.complete) != 1 || !s.complete[0].GetExecution().GetApplied() {
		t.Fatalf("a write of %d bytes (%d as arguments): errors %v, %d calls completed", len(content), len(args), codes, len(s.complete))
	}
	if got := readFile(t, filepath.Join(ws, "largest.go")); len(got) != len(content) {
		t.Errorf("file has %d bytes, want %d", len(got), len(content))
	}
}
