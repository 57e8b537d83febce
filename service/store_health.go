package service

import (
	"context"
	"time"

	"go.uber.org/zap"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/toolguard/toolguard/guard"
)

// SessionStoreHealthService is the health service whose status is the
// session store's: NOT_SERVING while it cannot be reached. The server ("")
// stays SERVING meanwhile, answering calls uncounted; a readiness probe on
// this name takes a replica out instead.
const SessionStoreHealthService = "toolguard.v1.SessionStore"

// storeCheckInterval is how often the store's health is checked.
const storeCheckInterval = time.Second

// watchStore sets the store's health now and then every interval until
// quit is closed, logging each change (an error when it goes away). It
// returns once the first status is set.
func (s *Server) watchStore(g *guard.Guard, timeout, interval time.Duration, quit <-chan struct{}) (done <-chan struct{}) {
	exited := make(chan struct{})
	up := s.checkStore(g, timeout, true, false)
	go func() {
		defer close(exited)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				up = s.checkStore(g, timeout, up, true)
			}
		}
	}()
	return exited
}

// checkStore pings the store once and sets its status; logChange logs a
// status other than was.
func (s *Server) checkStore(g *guard.Guard, timeout time.Duration, was, logChange bool) bool {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	err := g.StoreReady(ctx)
	cancel()
	st := healthpb.HealthCheckResponse_SERVING
	if err != nil {
		st = healthpb.HealthCheckResponse_NOT_SERVING
	}
	s.health.SetServingStatus(SessionStoreHealthService, st)
	switch {
	case !logChange || (err == nil) == was:
	case err != nil:
		s.log.Error("session store unreachable: calls answered with mistakes.not_counted until it answers",
			zap.String("health_service", SessionStoreHealthService), zap.Error(err))
	default:
		s.log.Info("session store reachable again: counting resumes", zap.String("health_service", SessionStoreHealthService))
	}
	return err == nil
}
