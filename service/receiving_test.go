package service

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/net/http2"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
)

// TestMaxReceivingCalls holds one request half sent on a server that
// receives one at a time: every other call is refused before its request
// is read, with SERVER_RECEIVING_BUSY and a RetryInfo; once the request is
// whole, or its client gives up on it, calls are served again.
func TestMaxReceivingCalls(t *testing.T) {
	cfg := testConfig(t)
	cfg.MaxReceivingCalls = 1
	cfg.MetricsListen = "127.0.0.1:0"
	ts := startTestServer(t, cfg)
	health := healthpb.NewHealthClient(ts.conn)
	check := func() error {
		_, err := health.Check(context.Background(), &healthpb.HealthCheckRequest{})
		return err
	}
	if err := check(); err != nil {
		t.Fatalf("no request arriving: %v", err)
	}

	req, err := proto.Marshal(&toolguardv1.ValidateToolCallRequest{Call: &toolguardv1.ToolCall{Name: "write_to_file",
		Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: `{"path":"a.txt","content":"hi"}`}}})
	if err != nil {
		t.Fatal(err)
	}
	msg := binary.BigEndian.AppendUint32([]byte{0}, uint32(len(req)))
	msg = append(msg, req...)
	raw := dialH2(t, ts.conn.Target())
	raw.open(1, toolguardv1.ToolGuardService_ValidateToolCall_FullMethodName)
	raw.data(1, msg[:8], false)
	raw.sync()

	err = check()
	if status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("a call while a request arrives: %v, want RESOURCE_EXHAUSTED", err)
	}
	var reason string
	var retry bool
	for _, d := range status.Convert(err).Details() {
		switch d := d.(type) {
		case *errdetails.ErrorInfo:
			reason = d.GetReason()
		case *errdetails.RetryInfo:
			retry = d.GetRetryDelay().AsDuration() > 0
		}
	}
	if reason != "SERVER_RECEIVING_BUSY" || !retry {
		t.Fatalf("refusal %v: reason %q, RetryInfo %v; want SERVER_RECEIVING_BUSY with a RetryInfo", err, reason, retry)
	}

	// The rest of the request: its call runs and answers, and calls are
	// served again.
	raw.data(1, msg[8:], true)
	raw.until(func(f http2.Frame) bool {
		h, ok := f.(*http2.HeadersFrame)
		return ok && h.StreamID == 1 && h.StreamEnded()
	})
	if err := check(); err != nil {
		t.Fatalf("after the request arrived: %v", err)
	}

	// A request given up half sent leaves the count when its stream ends.
	raw.open(3, toolguardv1.ToolGuardService_ValidateToolCall_FullMethodName)
	raw.data(3, msg[:8], false)
	raw.sync()
	if err := raw.fr.WriteRSTStream(3, http2.ErrCodeCancel); err != nil {
		t.Fatal(err)
	}
	for {
		err := check()
		if err == nil {
			break
		}
		if status.Code(err) != codes.ResourceExhausted {
			t.Fatalf("after the request was given up: %v", err)
		}
	}

	metrics := scrapeMetrics(t, ts.srv.MetricsAddr().String())
	for _, want := range []string{"toolguard_receiving_calls 0\n", "toolguard_receiving_calls_max 1\n"} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %q", strings.TrimSpace(want))
		}
	}
	if strings.Contains(metrics, "toolguard_receiving_refused_total 0\n") || !strings.Contains(metrics, "toolguard_receiving_refused_total") {
		t.Error("no refusal counted")
	}
}

func scrapeMetrics(t *testing.T, addr string) string {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil && !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	return string(b)
}
