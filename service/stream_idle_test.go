package service

import (
	"bytes"
	"context"
	"io"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
	"google.golang.org/grpc"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
)

// fakeStream is a server stream that hands out frames and takes events.
type fakeStream struct {
	grpc.ServerStream
	frames []*toolguardv1.StreamToolCallsRequest
}

func (f *fakeStream) Recv() (*toolguardv1.StreamToolCallsRequest, error) {
	if len(f.frames) == 0 {
		return nil, io.EOF
	}
	fr := f.frames[0]
	f.frames = f.frames[1:]
	return fr, nil
}

func (f *fakeStream) Send(*toolguardv1.StreamToolCallsResponse) error { return nil }

// TestStreamPanicForwarded checks that a panic in the goroutine that runs a
// stream reaches the handler's goroutine, where the recovery interceptor
// catches it, with the stack where it began.
func TestStreamPanicForwarded(t *testing.T) {
	s := &toolGuardService{idleTimeout: time.Minute} // no guard: opening the stream panics
	srv := &fakeStream{frames: []*toolguardv1.StreamToolCallsRequest{{Frame: &toolguardv1.StreamToolCallsRequest_Start{Start: &toolguardv1.StreamStart{
		Context: &toolguardv1.RequestContext{SessionId: "s"}, Format: toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS,
	}}}}}
	var p any
	func() {
		defer func() { p = recover() }()
		_ = s.runStream(context.Background(), srv)
	}()
	f, ok := p.(*forwardedPanic)
	if !ok {
		t.Fatalf("recovered %v (%T), want a forwarded panic", p, p)
	}
	if !bytes.Contains(f.stack, []byte("RunStream")) {
		t.Errorf("forwarded stack does not show where the panic began:\n%s", f.stack)
	}

	core, logs := observer.New(zapcore.DebugLevel)
	_ = recoveryHandler(zap.New(core))(context.Background(), f)
	entries := logs.FilterMessage("recovered from panic in handler").All()
	if len(entries) != 1 {
		t.Fatalf("%d panic log entries, want 1", len(entries))
	}
	fields := entries[0].ContextMap()
	if fields["panic"] != f.String() || fields["stack"] != string(f.stack) {
		t.Errorf("logged panic %q and stack %.80q; want the forwarded ones", fields["panic"], fields["stack"])
	}
}
