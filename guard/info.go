package guard

import (
	"context"
	"fmt"
	"io/fs"
	"time"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/workspace"
)

const (
	// MaxInfoPaths bounds the paths of one get_file_info call.
	MaxInfoPaths = 100
	// maxInfoReadBytes bounds what one get_file_info call reads to count
	// lines and hash: past it a file's are not computed, and it says so.
	maxInfoReadBytes = 64 << 20
)

// The kinds of PathInfo.Kind.
const (
	KindFile      = workspace.KindFile
	KindDirectory = workspace.KindDirectory
	KindSymlink   = workspace.KindSymlink
	KindOther     = workspace.KindOther
)

// PathInfo is one path's answer of get_file_info: what it is, or the
// refusal beside it. A denied path is only that: Denied and DeniedBy, no
// word of whether it exists.
type PathInfo struct {
	// Asked is the path as given; Path the workspace-relative one.
	Asked, Path string
	// Kind is KindFile, KindDirectory, KindSymlink or KindOther; "" when not described.
	Kind string
	Size int64
	Mode fs.FileMode
	// The times are zero where the platform does not report them.
	Modified, Accessed, Changed, Created time.Time
	// LinkTarget is a link's target as written, never followed.
	LinkTarget string
	// Lines (-1: not counted) and SHA256 of a regular file; NotComputed
	// says why they are missing (a binary file has a hash, no line count).
	Lines       int
	SHA256      string
	NotComputed string
	Denied      bool
	DeniedBy    string
	// Error is why the path was not described.
	Error *repair.Violation
}

// Info is the outcome of get_file_info: each path's answer, in the order
// asked, whether or not the verdict is usable (it is not when no path
// could be described).
type Info struct {
	*Verdict
	Paths []PathInfo
}

// InfoRequest asks for the description of paths, in fields.
type InfoRequest struct {
	LookContext
	Paths []string
}

// GetFileInfo describes paths as the GetFileInfo RPC asks: a call of
// get_file_info, counted in the session as the model's.
func (g *Guard) GetFileInfo(ctx context.Context, req InfoRequest) (*Info, error) {
	call, err := req.call(InfoToolName, map[string]any{"paths": nonNil(req.Paths)})
	if err != nil {
		return nil, err
	}
	return g.InfoCall(ctx, call)
}

// InfoCall repairs and validates a get_file_info call (under any of its
// names) and describes each path.
func (g *Guard) InfoCall(ctx context.Context, req ExecuteRequest) (*Info, error) {
	out := &Info{}
	v, err := g.lookFiles(ctx, req, InfoToolName, func(ws *workspace.Workspace, res *repair.Result) error {
		paths, bad := pathsArg(res.Args, true, MaxInfoPaths)
		if bad != nil {
			res.Violate(bad.Code, bad.Param, bad.Message)
			return nil
		}
		errs := make([]*repair.Violation, len(paths))
		budget := int64(maxInfoReadBytes)
		for i, p := range paths {
			pi, err := describe(ws, p, &budget)
			if err != nil {
				return err
			}
			out.Paths = append(out.Paths, pi)
			errs[i] = pi.Error
		}
		noneServed(res, errs)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out.Verdict = v
	return out, nil
}

// describe answers for one path, reading a regular file within budget to
// count its lines and hash it. A refusal is the answer's Error; only the
// server's own failures are returned.
func describe(ws *workspace.Workspace, p string, budget *int64) (PathInfo, error) {
	wi, err := ws.Info(p, *budget > 0)
	out := PathInfo{Asked: p, Path: wi.Path, Lines: -1}
	switch {
	case workspace.IsCode(err, workspace.CodeDeniedPath) && wi.DeniedBy != "":
		out.Denied, out.DeniedBy, out.Error = true, wi.DeniedBy, pathViolation(err)
		return out, nil
	case workspace.IsCode(err, workspace.CodeConflict):
		return PathInfo{}, &FileChangedError{Path: p, Expected: "(as opened)", Actual: "(changed while being read)"}
	case err != nil && workspace.CodeOf(err) == "":
		return PathInfo{}, fmt.Errorf("describe %s: %w", p, err)
	case err != nil:
		out.Error = pathViolation(err)
		return out, nil
	}
	out.Kind, out.Size, out.Mode, out.LinkTarget = wi.Kind, wi.Size, wi.Mode, wi.LinkTarget
	out.Modified, out.Accessed, out.Changed, out.Created = wi.Modified, wi.Accessed, wi.Changed, wi.Created
	if wi.Kind != workspace.KindFile {
		return out, nil
	}
	switch {
	case wi.NotRead != "":
		out.NotComputed = wi.NotRead
	case wi.Data == nil && wi.SHA256 == "":
		out.NotComputed = fmt.Sprintf("this call has read its %d bytes for line counts and hashes; ask for this path in another call", maxInfoReadBytes)
	default:
		*budget -= int64(len(wi.Data))
		out.SHA256 = wi.SHA256
		if msg := binaryReason(wi.Data); msg != "" {
			out.NotComputed = "no line count: the file is " + msg
		} else {
			out.Lines = len(splitLines(string(wi.Data)))
		}
	}
	return out, nil
}
