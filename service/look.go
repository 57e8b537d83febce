package service

import (
	"context"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/service/protoapi"
)

// ListDirectory and FindFiles look at a workspace: granted as a read is.

func (s *toolGuardService) ListDirectory(ctx context.Context, req *toolguardv1.ListDirectoryRequest) (*toolguardv1.ListDirectoryResponse, error) {
	logSessionID(ctx, req.GetContext().GetSessionId())
	in, err := protoapi.ListRequest(req)
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	pv, lk, err := s.look(ctx, &in.RequestContext, func() (*guard.Look, error) { return s.guard.ListDirectory(ctx, in) })
	if err != nil {
		return nil, err
	}
	return protoapi.ListToProto(pv, lk), nil
}

func (s *toolGuardService) FindFiles(ctx context.Context, req *toolguardv1.FindFilesRequest) (*toolguardv1.FindFilesResponse, error) {
	logSessionID(ctx, req.GetContext().GetSessionId())
	in, err := protoapi.FindRequest(req)
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	pv, lk, err := s.look(ctx, &in.RequestContext, func() (*guard.Look, error) { return s.guard.FindFiles(ctx, in) })
	if err != nil {
		return nil, err
	}
	return protoapi.FindToProto(pv, lk), nil
}

// look scopes the session to the caller's grant, runs the look and
// converts its verdict; errors come back as statuses.
func (s *toolGuardService) look(ctx context.Context, rc *guard.RequestContext, run func() (*guard.Look, error)) (*toolguardv1.Verdict, *guard.Look, error) {
	var err error
	if rc.SessionID, err = callerFromContext(ctx).scope(rc.SessionID, rc.Workspace, true); err != nil {
		return nil, nil, s.toStatus(ctx, err)
	}
	lk, err := run()
	if err != nil {
		return nil, nil, s.toStatus(ctx, err)
	}
	s.logVerdict(ctx, lk.Verdict)
	pv, err := protoapi.VerdictToProto(lk.Verdict, "")
	if err != nil {
		return nil, nil, s.toStatus(ctx, err)
	}
	return pv, lk, nil
}
