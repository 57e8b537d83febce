package service_test

import (
	"context"
	"testing"

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
