package service

import (
	"context"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/service/protoapi"
)

// GetFileInfo, ReadFiles and ReadMediaFile read the files of a workspace
// (the default one when none is named): granted as a read is.

func (s *toolGuardService) GetFileInfo(ctx context.Context, req *toolguardv1.GetFileInfoRequest) (*toolguardv1.GetFileInfoResponse, error) {
	logSessionID(ctx, req.GetContext().GetSessionId())
	in, err := protoapi.InfoRequest(req)
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	pv, lk, err := s.look(ctx, &in.RequestContext, func() (*guard.Look, error) { return s.guard.GetFileInfo(ctx, in) })
	if err != nil {
		return nil, err
	}
	return protoapi.InfoToProto(pv, lk), nil
}

func (s *toolGuardService) ReadFiles(ctx context.Context, req *toolguardv1.ReadFilesRequest) (*toolguardv1.ReadFilesResponse, error) {
	logSessionID(ctx, req.GetContext().GetSessionId())
	in, err := protoapi.ReadFilesRequest(req)
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	pv, lk, err := s.look(ctx, &in.RequestContext, func() (*guard.Look, error) { return s.guard.ReadFiles(ctx, in) })
	if err != nil {
		return nil, err
	}
	return protoapi.ReadFilesToProto(pv, lk), nil
}

func (s *toolGuardService) ReadMediaFile(ctx context.Context, req *toolguardv1.ReadMediaFileRequest) (*toolguardv1.ReadMediaFileResponse, error) {
	logSessionID(ctx, req.GetContext().GetSessionId())
	in, err := protoapi.MediaRequest(req)
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	pv, lk, err := s.look(ctx, &in.RequestContext, func() (*guard.Look, error) { return s.guard.ReadMedia(ctx, in) })
	if err != nil {
		return nil, err
	}
	return protoapi.MediaToProto(pv, lk), nil
}
