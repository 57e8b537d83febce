package service

import (
	"testing"

	"golang.org/x/net/http2"
	"google.golang.org/grpc"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"
)

// stalled is a streaming handler that never reads its request: what it
// is sent stays in the server's buffers until the stream ends.
type stalled struct {
	testgrpc.UnimplementedTestServiceServer
}

func (stalled) FullDuplexCall(s testgrpc.TestService_FullDuplexCallServer) error {
	<-s.Context().Done()
	return nil
}

// TestStaticWindows speaks HTTP/2 to the server: it announces a 64 KiB
// stream window and a 16 MiB connection window, and a stream whose handler
// is not reading gets no more than 64 KiB: one byte more is a flow-control
// error, not more memory.
func TestStaticWindows(t *testing.T) {
	ts := startTestServer(t, testConfig(t), func(r grpc.ServiceRegistrar) { testgrpc.RegisterTestServiceServer(r, stalled{}) })
	raw := dialH2(t, ts.conn.Target())

	// The server's settings and its connection window come first, before
	// its answer to a ping sent after the preface.
	if err := raw.fr.WritePing(false, [8]byte{1}); err != nil {
		t.Fatal(err)
	}
	var streamWindow, connWindow uint32 = 65535, 65535
	raw.until(func(f http2.Frame) bool {
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if v, ok := f.Value(http2.SettingInitialWindowSize); ok && !f.IsAck() {
				streamWindow = v
			}
		case *http2.WindowUpdateFrame:
			if f.StreamID == 0 {
				connWindow += f.Increment
			}
		case *http2.PingFrame:
			return f.IsAck()
		}
		return false
	})
	if streamWindow != streamWindowBytes || connWindow != connWindowBytes {
		t.Fatalf("stream window %d, connection window %d; want %d and %d", streamWindow, connWindow, streamWindowBytes, connWindowBytes)
	}

	// A stream to the stalled handler, sent one byte more than its window.
	raw.open(1, "/grpc.testing.TestService/FullDuplexCall")
	chunk := make([]byte, 16<<10)
	for sent := 0; sent <= streamWindowBytes; {
		n := min(len(chunk), streamWindowBytes+1-sent)
		raw.data(1, chunk[:n], false)
		sent += n
	}
	raw.until(func(f http2.Frame) bool {
		if w, ok := f.(*http2.WindowUpdateFrame); ok && w.StreamID == 1 {
			t.Fatalf("the server opened the stream's window by %d before its handler read", w.Increment)
		}
		rst, ok := f.(*http2.RSTStreamFrame)
		if ok && rst.StreamID == 1 && rst.ErrCode != http2.ErrCodeFlowControl {
			t.Fatalf("stream reset with %v, want FLOW_CONTROL_ERROR", rst.ErrCode)
		}
		return ok && rst.StreamID == 1
	})
}
