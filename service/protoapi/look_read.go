package protoapi

import (
	"fmt"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/repair"
)

// checkPaths refuses a list of paths the caller filled that no call could
// take: none, or more than the bound. Each path itself is the model's.
func checkPaths(paths []string, most int) error {
	switch {
	case len(paths) == 0:
		return &FieldError{Field: "paths", Reason: "PATHS_REQUIRED", Description: "give at least one path"}
	case len(paths) > most:
		return &FieldError{Field: "paths", Reason: "TOO_MANY_PATHS", Description: fmt.Sprintf("%d paths; at most %d in one call", len(paths), most)}
	}
	return nil
}

// InfoRequest checks a GetFileInfoRequest and converts it.
func InfoRequest(req *toolguardv1.GetFileInfoRequest) (guard.InfoRequest, error) {
	rc, err := requestContext(req.GetContext())
	if err != nil {
		return guard.InfoRequest{}, err
	}
	if err := checkPaths(req.GetPaths(), guard.MaxInfoPaths); err != nil {
		return guard.InfoRequest{}, err
	}
	return guard.InfoRequest{RequestContext: rc, Paths: req.GetPaths()}, nil
}

// ReadFilesRequest checks a ReadFilesRequest and converts it.
func ReadFilesRequest(req *toolguardv1.ReadFilesRequest) (guard.ReadFilesRequest, error) {
	rc, err := requestContext(req.GetContext())
	if err != nil {
		return guard.ReadFilesRequest{}, err
	}
	if err := checkPaths(req.GetPaths(), guard.MaxReadFiles); err != nil {
		return guard.ReadFilesRequest{}, err
	}
	return guard.ReadFilesRequest{RequestContext: rc, Paths: req.GetPaths(), Head: int(req.GetHead()), Tail: int(req.GetTail()), LineNumbers: req.GetLineNumbers()}, nil
}

// MediaRequest checks a ReadMediaFileRequest and converts it. The path is
// the model's: an empty or refused one is a verdict.
func MediaRequest(req *toolguardv1.ReadMediaFileRequest) (guard.MediaRequest, error) {
	rc, err := requestContext(req.GetContext())
	if err != nil {
		return guard.MediaRequest{}, err
	}
	return guard.MediaRequest{RequestContext: rc, Path: req.GetPath()}, nil
}

var fileTypes = map[string]toolguardv1.FileType{
	guard.KindFile: toolguardv1.FileType_FILE_TYPE_FILE, guard.KindDirectory: toolguardv1.FileType_FILE_TYPE_DIRECTORY,
	guard.KindSymlink: toolguardv1.FileType_FILE_TYPE_SYMLINK, guard.KindOther: toolguardv1.FileType_FILE_TYPE_OTHER,
}

// InfoToProto converts get_file_info's outcome to its API form.
func InfoToProto(pv *toolguardv1.Verdict, lk *guard.Look) *toolguardv1.GetFileInfoResponse {
	out := &toolguardv1.GetFileInfoResponse{Verdict: pv}
	info, ok := lk.Result.(*guard.Info)
	if !ok {
		return out
	}
	for _, p := range info.Paths {
		f := &toolguardv1.FileInfo{Path: p.Asked, ResolvedPath: p.Path, Type: fileTypes[p.Kind], LinkTarget: p.LinkTarget,
			Sha256: p.SHA256, NotComputed: p.NotComputed, Denied: p.Denied, DeniedBy: p.DeniedBy, Error: violationToProto(p.Error)}
		if p.Kind != "" {
			f.Size, f.Mode = uint64(max(p.Size, 0)), uint32(p.Mode.Perm())
			f.Modified, f.Accessed, f.Created = timestamp(p.Modified), timestamp(p.Accessed), timestamp(p.Created)
		}
		if p.Lines >= 0 {
			n := uint32(p.Lines)
			f.TotalLines = &n
		}
		out.Files = append(out.Files, f)
	}
	return out
}

// ReadFilesToProto converts read_multiple_files' outcome to its API form.
func ReadFilesToProto(pv *toolguardv1.Verdict, lk *guard.Look) *toolguardv1.ReadFilesResponse {
	out := &toolguardv1.ReadFilesResponse{Verdict: pv}
	many, ok := lk.Result.(*guard.ReadMany)
	if !ok {
		return out
	}
	for _, f := range many.Files {
		offset, column := f.Next()
		out.Files = append(out.Files, &toolguardv1.FileText{
			Path: f.Asked, ResolvedPath: f.Path, Content: f.Content, Sha256: f.SHA256, Size: uint64(max(f.Size, 0)),
			TotalLines: uint32(f.TotalLines), StartLine: uint32(max(f.StartLine, 0)), EndLine: uint32(max(f.EndLine, 0)),
			Truncated: f.Truncated, NextOffset: uint32(max(offset, 0)), NextColumn: uint32(max(column, 0)), Error: violationToProto(f.Error),
		})
	}
	return out
}

// MediaToProto converts read_media_file's outcome to its API form.
func MediaToProto(pv *toolguardv1.Verdict, lk *guard.Look) *toolguardv1.ReadMediaFileResponse {
	m, ok := lk.Result.(*guard.Media)
	if !ok {
		return &toolguardv1.ReadMediaFileResponse{Verdict: pv}
	}
	return &toolguardv1.ReadMediaFileResponse{Verdict: pv, Path: m.Path, MimeType: m.MIMEType, Data: m.Data, Sha256: m.SHA256}
}

func violationToProto(v *repair.Violation) *toolguardv1.Violation {
	if v == nil {
		return nil
	}
	return &toolguardv1.Violation{Code: v.Code, Param: v.Param, Message: v.Message}
}

// timestamp is t, or unset when the platform did not report it.
func timestamp(t time.Time) *timestamppb.Timestamp {
	if t.IsZero() {
		return nil
	}
	return timestamppb.New(t)
}
