package service

import (
	"bytes"
	"io"
	"net"
	"testing"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
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
	conn, err := net.Dial("tcp", ts.conn.Target())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, http2.ClientPreface); err != nil {
		t.Fatal(err)
	}
	fr := http2.NewFramer(conn, conn)
	if err := fr.WriteSettings(); err != nil {
		t.Fatal(err)
	}

	// The server's settings and its connection window come first, before
	// its answer to a ping sent after the preface.
	if err := fr.WritePing(false, [8]byte{1}); err != nil {
		t.Fatal(err)
	}
	var streamWindow, connWindow uint32 = 65535, 65535
	for pinged := false; !pinged; {
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatalf("reading the server's first frames: %v", err)
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if f.IsAck() {
				continue
			}
			if v, ok := f.Value(http2.SettingInitialWindowSize); ok {
				streamWindow = v
			}
			if err := fr.WriteSettingsAck(); err != nil {
				t.Fatal(err)
			}
		case *http2.WindowUpdateFrame:
			if f.StreamID == 0 {
				connWindow += f.Increment
			}
		case *http2.PingFrame:
			pinged = f.IsAck()
		}
	}
	if streamWindow != streamWindowBytes || connWindow != connWindowBytes {
		t.Fatalf("stream window %d, connection window %d; want %d and %d", streamWindow, connWindow, streamWindowBytes, connWindowBytes)
	}

	// A stream to the stalled handler, sent one byte more than its window.
	var hdr bytes.Buffer
	enc := hpack.NewEncoder(&hdr)
	for _, f := range [][2]string{{":method", "POST"}, {":scheme", "http"}, {":authority", "toolguard"},
		{":path", "/grpc.testing.TestService/FullDuplexCall"}, {"content-type", "application/grpc"}, {"te", "trailers"}} {
		if err := enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]}); err != nil {
			t.Fatal(err)
		}
	}
	if err := fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: hdr.Bytes(), EndHeaders: true}); err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 16<<10)
	for sent := 0; sent <= streamWindowBytes; {
		n := min(len(chunk), streamWindowBytes+1-sent)
		if err := fr.WriteData(1, false, chunk[:n]); err != nil {
			t.Fatal(err)
		}
		sent += n
	}
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatalf("waiting for the stream's reset: %v", err)
		}
		if rst, ok := f.(*http2.RSTStreamFrame); ok && rst.StreamID == 1 {
			if rst.ErrCode != http2.ErrCodeFlowControl {
				t.Fatalf("stream reset with %v, want FLOW_CONTROL_ERROR", rst.ErrCode)
			}
			return
		}
		if w, ok := f.(*http2.WindowUpdateFrame); ok && w.StreamID == 1 {
			t.Fatalf("the server opened the stream's window by %d before its handler read", w.Increment)
		}
	}
}
