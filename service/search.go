package service

import (
	"context"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/service/protoapi"
)

// SearchFiles searches a workspace's contents: granted as a read is.
func (s *toolGuardService) SearchFiles(ctx context.Context, req *toolguardv1.SearchFilesRequest) (*toolguardv1.SearchFilesResponse, error) {
	logSessionID(ctx, req.GetContext().GetSessionId())
	in, err := protoapi.SearchRequest(req)
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	pv, lk, err := s.look(ctx, &in.RequestContext, func() (*guard.Look, error) { return s.guard.SearchFiles(ctx, in) })
	if err != nil {
		return nil, err
	}
	return protoapi.SearchToProto(pv, lk), nil
}
