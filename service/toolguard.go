package service

import (
	"go.uber.org/zap"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
)

// newToolGuardService builds the ToolGuardService implementation and returns
// it with the cleanup that releases what it holds (session store...).
// TEMPORARY boundary, replaced by the real handlers.
func newToolGuardService(cfg Config, log *zap.Logger) (toolguardv1.ToolGuardServiceServer, func() error, error) {
	return toolguardv1.UnimplementedToolGuardServiceServer{}, func() error { return nil }, nil
}
