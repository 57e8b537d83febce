package service

import (
	"context"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

// drainingHealth ends Watch streams once the server stops draining:
// GracefulStop waits for every open stream, and a client-side health Watch
// never ends on its own, so every shutdown would last ShutdownTimeout.
type drainingHealth struct {
	*health.Server
	stopping <-chan struct{}
}

// Watch serves health.Server's Watch until the client leaves or the server
// stops draining; then it lets NOT_SERVING reach the client and ends with
// Unavailable, which tells a client to go elsewhere.
func (h drainingHealth) Watch(req *healthpb.HealthCheckRequest, stream healthpb.Health_WatchServer) error {
	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	ws := &watchStream{Health_WatchServer: stream, ctx: ctx, notServing: make(chan struct{})}

	var ended bool // set before cancel; read after Watch returns (ordered by done)
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-h.stopping:
		case <-ctx.Done():
			return
		}
		// An unknown service will not be sent NOT_SERVING: nothing to wait for.
		if _, err := h.Check(ctx, req); err == nil {
			select {
			case <-ws.notServing:
			case <-ctx.Done():
				return
			}
		}
		ended = true
		cancel()
	}()

	err := h.Server.Watch(req, ws)
	cancel()
	<-done
	if ended && status.Code(err) == codes.Canceled {
		return status.Error(codes.Unavailable, "server is shutting down")
	}
	return err
}

// watchStream is a Watch stream the server can end, reporting when
// NOT_SERVING was sent on it.
type watchStream struct {
	healthpb.Health_WatchServer
	ctx        context.Context
	once       sync.Once
	notServing chan struct{} // closed once NOT_SERVING was sent
}

func (w *watchStream) Context() context.Context { return w.ctx }

func (w *watchStream) Send(resp *healthpb.HealthCheckResponse) error {
	err := w.Health_WatchServer.Send(resp)
	if err == nil && resp.GetStatus() == healthpb.HealthCheckResponse_NOT_SERVING {
		w.once.Do(func() { close(w.notServing) })
	}
	return err
}
