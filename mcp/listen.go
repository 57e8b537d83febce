package mcp

import (
	"context"
	"net"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/toolguard/toolguard/internal/lifecycle"
	"github.com/toolguard/toolguard/observe"
)

// HTTPServeOptions bound the HTTP server that carries the streamable
// transport.
type HTTPServeOptions struct {
	Listen string
	// MaxConnections caps the connections open at once; more are closed
	// at once (internal/lifecycle.ConnLimit).
	MaxConnections  int
	ShutdownTimeout time.Duration
	Log             *zap.Logger
	// Metrics, when set, takes the connection metrics.
	Metrics Registerer
}

// httpServer serves an MCP handler the way every front end serves: bound
// first, stopped gracefully within a bound (internal/lifecycle).
type httpServer struct {
	run lifecycle.Runner
}

func (s *httpServer) Serve(ctx context.Context, lis net.Listener) error {
	return s.run.Serve(ctx, lis)
}

// ListenAndServeHTTP serves h (Server.HTTPHandler) on o.Listen until ctx
// ends, then lets the calls in flight finish within o.ShutdownTimeout.
// Headers and idle connections are bounded in time; a body's time is
// bounded per request (limits.go), not by ReadTimeout, which would cut the
// event streams when it passed.
func ListenAndServeHTTP(ctx context.Context, h http.Handler, o HTTPServeOptions) error {
	return lifecycle.ListenAndServe(ctx, o.Listen, func() (*httpServer, error) { return newHTTPServer(h, o) })
}

func newHTTPServer(h http.Handler, o HTTPServeOptions) (*httpServer, error) {
	log := o.Log
	if log == nil {
		log = zap.NewNop()
	}
	s := &httpServer{}
	s.run.Conns = lifecycle.NewConnLimit(o.MaxConnections)
	if o.Metrics != nil {
		if err := o.Metrics.Register(observe.ConnectionMetrics(s.run.Conns)); err != nil {
			return nil, err
		}
	}
	s.run.Server = lifecycle.HTTP(&http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10})
	s.run.Log, s.run.Name, s.run.Work, s.run.Stopped = log, "MCP over streamable HTTP", "requests", "MCP server stopped"
	s.run.ShutdownTimeout = o.ShutdownTimeout
	return s, nil
}
