package guard

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/workspace"
)

const (
	// InfoToolName describes paths: what each is, changing nothing.
	InfoToolName = "get_file_info"
	// MaxInfoPaths bounds the paths of one get_file_info call.
	MaxInfoPaths = 100
	// maxInfoReadBytes bounds what one get_file_info call reads to count
	// lines and hash: past it a file's are not computed, and it says so.
	maxInfoReadBytes = 64 << 20
)

func init() { registerLook(InfoToolName, (*Guard).infoCall) }

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

// Info is what get_file_info answers: each path's answer, in the order
// asked; it stands beside an unusable verdict when no path could be
// described.
type Info struct {
	Paths []PathInfo
}

// InfoRequest asks for the description of paths, in fields.
type InfoRequest struct {
	RequestContext
	Paths []string
}

// GetFileInfo describes paths as the GetFileInfo RPC asks: a call of
// get_file_info, counted in the session as the model's.
func (g *Guard) GetFileInfo(ctx context.Context, req InfoRequest) (*Look, error) {
	return g.lookRequest(ctx, req.RequestContext, InfoToolName, map[string]any{"paths": nonNil(req.Paths)})
}

// infoCall describes each path of a get_file_info call.
func (g *Guard) infoCall(_ context.Context, ws *workspace.Workspace, res *repair.Result) (LookResult, error) {
	paths, bad := pathsArg(res.Args, true, MaxInfoPaths)
	if bad != nil {
		res.Violate(bad.Code, bad.Param, bad.Message)
		return nil, nil
	}
	out := &Info{}
	errs := make([]*repair.Violation, len(paths))
	budget := int64(maxInfoReadBytes)
	for i, p := range paths {
		pi, err := describe(ws, p, &budget)
		if err != nil {
			return nil, err
		}
		out.Paths = append(out.Paths, pi)
		errs[i] = pi.Error
	}
	noneServed(res, errs)
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

// Text writes each path's answer as "key: value" lines, as the reference
// file server's get_file_info does, the paths apart by a blank line.
func (info *Info) Text() string {
	var b strings.Builder
	for i, p := range info.Paths {
		if i > 0 {
			b.WriteString("\n")
		}
		p.write(&b)
	}
	return b.String()
}

func (p *PathInfo) write(b *strings.Builder) {
	fmt.Fprintf(b, "path: %s\n", p.Asked)
	switch {
	case p.Denied:
		fmt.Fprintf(b, "denied: by %s\n", p.DeniedBy)
		return
	case p.Error != nil:
		fmt.Fprintf(b, "error: %s\n", p.Error.Message)
		return
	}
	fmt.Fprintf(b, "type: %s\nsize: %d\npermissions: %04o (%s)\n", p.Kind, p.Size, uint32(p.Mode.Perm()), fs.FileMode(p.Mode.Perm()).String()[1:])
	for _, t := range []struct {
		name string
		at   time.Time
	}{{"modified", p.Modified}, {"accessed", p.Accessed}, {"created", p.Created}} {
		if !t.at.IsZero() {
			fmt.Fprintf(b, "%s: %s\n", t.name, t.at.UTC().Format(time.RFC3339))
		}
	}
	if p.LinkTarget != "" {
		fmt.Fprintf(b, "link target: %s (not followed)\n", p.LinkTarget)
	}
	if p.Lines >= 0 {
		fmt.Fprintf(b, "lines: %d\n", p.Lines)
	}
	if p.SHA256 != "" {
		fmt.Fprintf(b, "sha256: %s\n", p.SHA256)
	}
	if p.NotComputed != "" {
		fmt.Fprintf(b, "not computed: %s\n", p.NotComputed)
	}
}

// pathInfoJSON is one path as structured answers give it, named as in
// toolguard.v1's FileInfo.
type pathInfoJSON struct {
	Path         string            `json:"path"`
	ResolvedPath string            `json:"resolved_path,omitempty"`
	Type         string            `json:"type,omitempty"`
	Size         int64             `json:"size,omitempty"`
	Mode         string            `json:"mode,omitempty"`
	Modified     *time.Time        `json:"modified,omitempty"`
	Accessed     *time.Time        `json:"accessed,omitempty"`
	Created      *time.Time        `json:"created,omitempty"`
	LinkTarget   string            `json:"link_target,omitempty"`
	Lines        *int              `json:"total_lines,omitempty"`
	SHA256       string            `json:"sha256,omitempty"`
	NotComputed  string            `json:"not_computed,omitempty"`
	Denied       bool              `json:"denied,omitempty"`
	DeniedBy     string            `json:"denied_by,omitempty"`
	Error        *repair.Violation `json:"error,omitempty"`
}

// MarshalJSON gives the paths as toolguard.v1's GetFileInfoResponse names
// them: {"files": [...]}.
func (info *Info) MarshalJSON() ([]byte, error) {
	files := make([]pathInfoJSON, 0, len(info.Paths))
	for _, p := range info.Paths {
		out := pathInfoJSON{Path: p.Asked, ResolvedPath: p.Path, Type: p.Kind, LinkTarget: p.LinkTarget,
			SHA256: p.SHA256, NotComputed: p.NotComputed, Denied: p.Denied, DeniedBy: p.DeniedBy, Error: p.Error}
		if p.Kind != "" {
			out.Size, out.Mode = p.Size, fmt.Sprintf("%04o", uint32(p.Mode.Perm()))
			out.Modified, out.Accessed, out.Created = timeOrNil(p.Modified), timeOrNil(p.Accessed), timeOrNil(p.Created)
		}
		if p.Lines >= 0 {
			out.Lines = &p.Lines
		}
		files = append(files, out)
	}
	return json.Marshal(struct {
		Files []pathInfoJSON `json:"files"`
	}{files})
}

func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
