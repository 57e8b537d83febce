package service

import (
	"errors"
	"fmt"

	"github.com/toolguard/toolguard/internal/lifecycle"
	"github.com/toolguard/toolguard/observe"
)

// The server's connections are bounded like every front end's
// (internal/lifecycle.ConnLimit): past --max-connections a new one is
// closed at once, so a gRPC client sees UNAVAILABLE and reconnects after
// its backoff instead of hanging on a connection that never answers.

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
