package service

import (
	"context"
	"io"
	"net"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
)

// fakeTransportStream lets grpc.SetHeader work outside a server.
type fakeTransportStream struct{ method string }

func (f fakeTransportStream) Method() string                  { return f.method }
func (fakeTransportStream) SetHeader(metadata.MD) error       { return nil }
func (fakeTransportStream) SendHeader(metadata.MD) error      { return nil }
func (fakeTransportStream) SetTrailer(metadata.MD) error      { return nil }
func (fakeTransportStream) SetSendCompress(string) error      { return nil }
func (fakeTransportStream) SendMsg(any) error                 { return nil }
func (fakeTransportStream) RecvMsg(any) error                 { return nil }
func (fakeTransportStream) Context() context.Context          { return context.Background() }
func (fakeTransportStream) SetHeaderAndTrailer() (bool, bool) { return false, false }

// BenchmarkUnaryChain is the production interceptor chain (request id,
// access log, auth, rate limit, recovery) around a handler that does
// nothing, without a network: what the chain itself costs a successful
// call, with the JSON logger at error (no line) and at info (one line, to
// nowhere).
func BenchmarkUnaryChain(b *testing.B) {
	for _, level := range []zapcore.Level{zapcore.ErrorLevel, zapcore.InfoLevel} {
		b.Run("log="+level.String(), func(b *testing.B) {
			log := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(io.Discard), level))
			cfg := DefaultConfig()
			cfg.Workspace = b.TempDir()
			access, err := newAccessControl(cfg)
			if err != nil {
				b.Fatal(err)
			}
			const method = "/toolguard.v1.ToolGuardService/ValidateToolCall"
			info := &grpc.UnaryServerInfo{FullMethod: method}
			var handler grpc.UnaryHandler = func(_ context.Context, req any) (any, error) { return req, nil }
			chain := interceptorChain(log, access.interceptors...)
			for i := len(chain) - 1; i >= 0; i-- {
				next, link := handler, chain[i].unary
				handler = func(ctx context.Context, req any) (any, error) { return link(ctx, req, info, next) }
			}
			ctx := grpc.NewContextWithServerTransportStream(context.Background(), fakeTransportStream{method})
			ctx = metadata.NewIncomingContext(ctx, metadata.Pairs("content-type", "application/grpc"))
			ctx = peer.NewContext(ctx, &peer.Peer{Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000}})
			b.ReportAllocs()
			for b.Loop() {
				if _, err := handler(ctx, struct{}{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
