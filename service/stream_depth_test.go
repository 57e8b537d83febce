package service_test

import (
	"context"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/service"
)

// heapInuse returns the live heap after a collection. The server runs in
// this process, so its memory is in the figure.
func heapInuse() uint64 {
	runtime.GC()
	runtime.GC() // pooled buffers (sync.Pool) survive one collection
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// TestStreamTooDeep streams a call whose arguments are 8 MiB of '[': the
// call is dropped with JSON_TOO_DEEP at --max-json-depth, the server does
// not keep what follows, and the stream goes on to complete the next call.
func TestStreamTooDeep(t *testing.T) {
	const total = 8 << 20
	c, _ := startWorkspace(t, service.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	st, err := c.StreamToolCalls(ctx)
	if err != nil {
		t.Fatal(err)
	}
	delta := func(d *toolguardv1.ToolCallDelta) *toolguardv1.StreamToolCallsRequest {
		return &toolguardv1.StreamToolCallsRequest{Frame: &toolguardv1.StreamToolCallsRequest_Delta{Delta: &toolguardv1.StreamDelta{ToolCalls: []*toolguardv1.ToolCallDelta{d}}}}
	}
	events := make(chan *toolguardv1.StreamToolCallsResponse, 64)
	go func() { // receive while sending, as a real client does
		defer close(events)
		for {
			ev, err := st.Recv()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				t.Errorf("recv: %v", err)
				return
			}
			events <- ev
		}
	}()
	var deepErr *toolguardv1.StreamErrorEvent
	complete := map[uint32]*toolguardv1.CallCompleteEvent{}
	var done *toolguardv1.StreamDoneEvent
	// until collects events until stop says so; it must not hang.
	until := func(stop func() bool) {
		t.Helper()
		for !stop() {
			select {
			case ev, ok := <-events:
				if !ok {
					t.Fatal("the stream ended early")
				}
				switch e := ev.GetEvent().(type) {
				case *toolguardv1.StreamToolCallsResponse_Error:
					if e.Error.GetCode() == "JSON_TOO_DEEP" {
						deepErr = e.Error
					}
				case *toolguardv1.StreamToolCallsResponse_CallComplete:
					complete[e.CallComplete.GetIndex()] = e.CallComplete
				case *toolguardv1.StreamToolCallsResponse_Done:
					done = e.Done
				}
			case <-ctx.Done():
				t.Fatal("no answer within the time allowed: the stream hangs")
			}
		}
	}

	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(st.Send(startFrame("deep", toolguardv1.StreamFormat_STREAM_FORMAT_OPENAI, nil)))
	base := heapInuse()
	must(st.Send(delta(&toolguardv1.ToolCallDelta{Index: 0, Id: "deep", Name: "write_to_file", Arguments: `{"path": "deep.txt", "content": `})))
	chunk := strings.Repeat("[", 64<<10)
	for range total / len(chunk) {
		must(st.Send(delta(&toolguardv1.ToolCallDelta{Index: 0, Arguments: chunk})))
	}
	must(st.Send(delta(&toolguardv1.ToolCallDelta{Index: 1, Id: "good", Name: "write_to_file", Arguments: `{"path": "good.txt", "content": "ok"}`, Done: true})))
	until(func() bool { return complete[1] != nil })
	// Every delta was read before the next call completed: what the server
	// still holds now is what the deep call left behind.
	grown := int64(heapInuse()) - int64(base)
	t.Logf("live heap grew by %d bytes for %d bytes of '['", grown, total)
	must(st.Send(delta(&toolguardv1.ToolCallDelta{Index: 0, Arguments: "]]]", Done: true})))
	must(st.Send(endFrame("tool_calls")))
	must(st.CloseSend())
	until(func() bool { return done != nil })
	for range events { // the stream ends after done
	}

	if deepErr == nil || deepErr.GetIndex() != 0 || !strings.Contains(deepErr.GetMessage(), "64") {
		t.Errorf("JSON_TOO_DEEP event %v", deepErr)
	}
	if complete[0] != nil {
		t.Errorf("the deep call completed (ok %v)", complete[0].GetVerdict().GetOk())
	}
	if !complete[1].GetVerdict().GetOk() || done.GetCalls() != 1 {
		t.Errorf("next call %v, done %v", complete[1].GetVerdict(), done)
	}
	if grown > total/8 {
		t.Errorf("live heap grew by %d bytes for %d bytes of input", grown, total)
	}
}
