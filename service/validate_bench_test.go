package service

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"google.golang.org/grpc"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/protobuf/proto"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/session"
)

// BenchmarkValidateToolCall is what the server does for one ValidateToolCall
// beyond the transport: the strict decoding of the request's bytes, the
// production interceptor chain, the handler (guard, conversion, logging)
// and the encoding of the answer, without a network. The calls are those of
// bench/'s server benchmark: a ~1 KB Write call in Python syntax with
// aliases (repaired), and the same call as valid JSON (valid). Its allocs/op
// are the validate path's garbage, which the collector pays for under load.
//
//	go test -run '^$' -bench ValidateToolCall -benchmem ./service/
func BenchmarkValidateToolCall(b *testing.B) {
	body := strings.Repeat(`def handler(event):\n    return {\'status\': 200}\n`, 19)
	valid := strings.Repeat(`def handler(event):\n    return {\"status\": 200}\n`, 19)
	calls := map[string]func(v int) *toolguardv1.ToolCall{
		"repaired": func(v int) *toolguardv1.ToolCall {
			return &toolguardv1.ToolCall{Name: "Write", Arguments: &toolguardv1.ToolCall_ArgumentsText{
				ArgumentsText: fmt.Sprintf(`{'file_path': 'src/handler.py', 'text': '# variant %d\n%s',}`, v, body)}}
		},
		"valid": func(v int) *toolguardv1.ToolCall {
			return &toolguardv1.ToolCall{Name: "write_to_file", Arguments: &toolguardv1.ToolCall_ArgumentsText{
				ArgumentsText: fmt.Sprintf(`{"path": "src/handler.py", "content": "# variant %d\n%s"}`, v, valid)}}
		},
	}
	for _, level := range []zapcore.Level{zapcore.ErrorLevel, zapcore.InfoLevel} {
		for _, name := range []string{"valid", "repaired"} {
			b.Run(fmt.Sprintf("log=%s/%s", level, name), func(b *testing.B) {
				var wire [2][]byte
				for v := range wire {
					req := &toolguardv1.ValidateToolCallRequest{
						Context: &toolguardv1.RequestContext{SessionId: "bench", ModelId: "deepseek-chat"},
						Call:    calls[name](v),
					}
					var err error
					if wire[v], err = proto.Marshal(req); err != nil {
						b.Fatal(err)
					}
				}
				call := validateCaller(b, level)
				if resp := call(wire[0], true); !resp.GetVerdict().GetOk() || (name == "repaired") != (len(resp.GetVerdict().GetRepairs()) > 0) {
					b.Fatalf("%s: %v", name, resp)
				}
				b.SetBytes(int64(len(wire[0])))
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					i++
					call(wire[i%2], false)
				}
			})
		}
	}
}

// validateCaller returns a function that serves one encoded ValidateToolCall
// request as the server does, the answer encoded, and decoded again for
// the caller to check.
func validateCaller(b *testing.B, level zapcore.Level) func([]byte, bool) *toolguardv1.ValidateToolCallResponse {
	log := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(io.Discard), level))
	cfg := DefaultConfig()
	cfg.Workspace = b.TempDir()
	access, err := newAccessControl(cfg)
	if err != nil {
		b.Fatal(err)
	}
	store := session.NewMemory(session.MemoryOptions{})
	b.Cleanup(func() { _ = store.Close() })
	svc, release, err := newToolGuardService(cfg, store, log, nil, access.streams, access.rates)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = release() })

	const method = "/toolguard.v1.ToolGuardService/ValidateToolCall"
	var handler grpc.MethodHandler
	for _, m := range strictService(answeredService(&toolguardv1.ToolGuardService_ServiceDesc, svc), newRequestDecoder(cfg.MaxJSONDepth)).Methods {
		if m.MethodName == "ValidateToolCall" {
			handler = m.Handler
		}
	}
	info := &grpc.UnaryServerInfo{Server: svc, FullMethod: method}
	links := make([]grpc.UnaryServerInterceptor, 0, 8)
	for _, ic := range interceptorChain(log, access.interceptors...) {
		links = append(links, ic.unary)
	}
	chain := func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		for i := len(links) - 1; i >= 0; i-- {
			next, link := h, links[i]
			h = func(ctx context.Context, req any) (any, error) { return link(ctx, req, info, next) }
		}
		return h(ctx, req)
	}
	ctx := grpc.NewContextWithServerTransportStream(context.Background(), fakeTransportStream{method})
	ctx = metadata.NewIncomingContext(ctx, metadata.Pairs("content-type", "application/grpc"))
	ctx = peer.NewContext(ctx, &peer.Peer{Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000}})
	codec := newWireCodec(log)
	return func(wire []byte, check bool) *toolguardv1.ValidateToolCallResponse {
		recv := func(m any) error { return codec.Unmarshal(mem.BufferSlice{mem.SliceBuffer(wire)}, m) }
		resp, err := handler(svc, ctx, recv, chain)
		if err != nil {
			b.Fatal(err)
		}
		out, err := codec.Marshal(resp)
		if err != nil {
			b.Fatal(err)
		}
		defer out.Free()
		if !check {
			return nil
		}
		var answer toolguardv1.ValidateToolCallResponse
		if err := proto.Unmarshal(out.Materialize(), &answer); err != nil {
			b.Fatal(err)
		}
		return &answer
	}
}
