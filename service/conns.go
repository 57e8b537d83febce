package service

import (
	"errors"
	"fmt"

	"google.golang.org/grpc"

	"github.com/toolguard/toolguard/internal/lifecycle"
	"github.com/toolguard/toolguard/observe"
)

// The server's connections are bounded like every front end's
// (internal/lifecycle.ConnLimit): past --max-connections a new one is
// closed at once, so a gRPC client sees UNAVAILABLE and reconnects after
// its backoff instead of hanging on a connection that never answers.

// Flow-control windows, static: grpc-go's estimate of the bandwidth-delay
// product would grow every stream's window up to 16 MiB on a fast
// connection, which a stream whose handler is not reading (a
// StreamToolCalls stream busy with its last frame, a call refused before
// its request is read) could then fill. Static, such a stream holds at
// most streamWindowBytes; a handler that reads a larger message opens the
// window to it as it reads, as before. The connection's window bounds
// only the bytes in flight, as grpc-go returns it as bytes arrive: it is
// the largest the estimate would reach, so throughput is what it was.
const (
	streamWindowBytes = 64 << 10
	connWindowBytes   = 16 << 20
)

func windowOptions() []grpc.ServerOption {
	return []grpc.ServerOption{grpc.StaticStreamWindowSize(streamWindowBytes), grpc.StaticConnWindowSize(connWindowBytes)}
}

func (c Config) validateConns() []error {
	if c.MaxConnections <= 0 {
		return []error{errors.New("max connections must be positive")}
	}
	return nil
}

// limitConns bounds the connections Serve accepts and exports their count.
func (s *Server) limitConns() error {
	s.run.Conns = lifecycle.NewConnLimit(s.cfg.MaxConnections)
	if s.metrics == nil {
		return nil
	}
	if err := s.metrics.Register(observe.ConnectionMetrics(s.run.Conns)); err != nil {
		return fmt.Errorf("register connection metrics: %w", err)
	}
	return nil
}
