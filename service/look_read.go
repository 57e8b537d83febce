package service

import (
	"context"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/service/protoapi"
)

// lookScope scopes a read-only request's session to the caller: it reads
// the files of a workspace (the default one when none is named), granted
// as an execution is.
func (s *toolGuardService) lookScope(ctx context.Context, lc *guard.LookContext) error {
	var err error
	lc.SessionID, err = callerFromContext(ctx).scope(lc.SessionID, lc.Workspace, true)
	return err
}

// lookVerdict logs a read-only call's verdict and converts it.
func (s *toolGuardService) lookVerdict(ctx context.Context, v *guard.Verdict) (*toolguardv1.Verdict, error) {
	s.logVerdict(ctx, v)
	return protoapi.VerdictToProto(v, "")
}

func (s *toolGuardService) GetFileInfo(ctx context.Context, req *toolguardv1.GetFileInfoRequest) (*toolguardv1.GetFileInfoResponse, error) {
	logSessionID(ctx, req.GetContext().GetSessionId())
	in, err := protoapi.InfoRequest(req)
	if err == nil {
		err = s.lookScope(ctx, &in.LookContext)
	}
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	info, err := s.guard.GetFileInfo(ctx, in)
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	pv, err := s.lookVerdict(ctx, info.Verdict)
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return protoapi.InfoToProto(pv, info), nil
}

func (s *toolGuardService) ReadFiles(ctx context.Context, req *toolguardv1.ReadFilesRequest) (*toolguardv1.ReadFilesResponse, error) {
	logSessionID(ctx, req.GetContext().GetSessionId())
	in, err := protoapi.ReadFilesRequest(req)
	if err == nil {
		err = s.lookScope(ctx, &in.LookContext)
	}
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	many, err := s.guard.ReadFiles(ctx, in)
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	pv, err := s.lookVerdict(ctx, many.Verdict)
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return protoapi.ReadFilesToProto(pv, many), nil
}

func (s *toolGuardService) ReadMediaFile(ctx context.Context, req *toolguardv1.ReadMediaFileRequest) (*toolguardv1.ReadMediaFileResponse, error) {
	logSessionID(ctx, req.GetContext().GetSessionId())
	in, err := protoapi.MediaRequest(req)
	if err == nil {
		err = s.lookScope(ctx, &in.LookContext)
	}
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	m, err := s.guard.ReadMedia(ctx, in)
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	pv, err := s.lookVerdict(ctx, m.Verdict)
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return protoapi.MediaToProto(pv, m), nil
}
