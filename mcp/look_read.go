package mcp

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/repair"
)

// readLooks carry out the read-only tools of info, read-several and media,
// by tool name (guard.ActionLook).
var readLooks = map[string]func(*Server, context.Context, guard.ExecuteRequest) (*sdk.CallToolResult, error){
	guard.InfoToolName:      (*Server).infoLook,
	guard.ReadFilesToolName: (*Server).readFilesLook,
	guard.MediaToolName:     (*Server).mediaLook,
}

// look runs a read-only tool's call.
func (s *Server) look(ctx context.Context, tool string, req guard.ExecuteRequest) (*sdk.CallToolResult, error) {
	run, ok := readLooks[tool]
	if !ok {
		return nil, fmt.Errorf("toolguard: %s is no read-only tool of this server", tool)
	}
	return run(s, ctx, req)
}

// PathInfo is one path of get_file_info's structuredContent, named as in
// toolguard.v1's FileInfo.
type PathInfo struct {
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

// FileRead is one file of read_multiple_files' structuredContent.
type FileRead struct {
	Path  string            `json:"path"`
	Read  *Read             `json:"read,omitempty"`
	Error *repair.Violation `json:"error,omitempty"`
}

// Media describes the file read_media_file returned (its bytes are the content).
type Media struct {
	Path     string `json:"path"`
	MIMEType string `json:"mime_type"`
	Size     int    `json:"size"`
	SHA256   string `json:"sha256"`
}

// lookVerdict is a read-only call's structuredContent: the verdict and
// what the call found.
type lookVerdict struct {
	*Verdict
	Info  []PathInfo `json:"info,omitempty"`
	Files []FileRead `json:"files,omitempty"`
	Media *Media     `json:"media,omitempty"`
}

func (s *Server) infoLook(ctx context.Context, req guard.ExecuteRequest) (*sdk.CallToolResult, error) {
	info, err := s.g.InfoCall(ctx, req)
	if err != nil {
		return nil, err
	}
	lv := &lookVerdict{Verdict: verdictOf(info.Verdict)}
	var b strings.Builder
	for i, p := range info.Paths {
		lv.Info = append(lv.Info, pathInfoOf(p))
		if i > 0 {
			b.WriteString("\n")
		}
		writePathInfo(&b, p)
	}
	b.WriteString(repairsLine(info.Repairs))
	out := result(lv.Verdict, info.Feedback+"\n\n"+b.String(), b.String())
	out.StructuredContent = lv
	return out, nil
}

func pathInfoOf(p guard.PathInfo) PathInfo {
	out := PathInfo{Path: p.Asked, ResolvedPath: p.Path, Type: p.Kind, Size: p.Size, LinkTarget: p.LinkTarget,
		SHA256: p.SHA256, NotComputed: p.NotComputed, Denied: p.Denied, DeniedBy: p.DeniedBy, Error: p.Error}
	if p.Kind == "" {
		out.Size = 0
		return out
	}
	out.Mode = fmt.Sprintf("%04o", uint32(p.Mode.Perm()))
	out.Modified, out.Accessed, out.Created = timeOrNil(p.Modified), timeOrNil(p.Accessed), timeOrNil(p.Created)
	if p.Lines >= 0 {
		out.Lines = &p.Lines
	}
	return out
}

func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// writePathInfo writes one path's answer as "key: value" lines, as the
// reference file server's get_file_info does.
func writePathInfo(b *strings.Builder, p guard.PathInfo) {
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

func (s *Server) readFilesLook(ctx context.Context, req guard.ExecuteRequest) (*sdk.CallToolResult, error) {
	many, err := s.g.ReadFilesCall(ctx, req)
	if err != nil {
		return nil, err
	}
	lv := &lookVerdict{Verdict: verdictOf(many.Verdict)}
	// The reference server's layout: "path:\ntext\n" or "path: Error - why",
	// the files apart by "\n---\n".
	parts := make([]string, 0, len(many.Files))
	for _, f := range many.Files {
		if f.Error != nil {
			lv.Files = append(lv.Files, FileRead{Path: f.Asked, Error: f.Error})
			parts = append(parts, fmt.Sprintf("%s: Error - %s", f.Asked, f.Error.Message))
			continue
		}
		lv.Files = append(lv.Files, FileRead{Path: f.Asked, Read: &Read{Path: f.Path, SHA256: f.SHA256, Size: f.Size, TotalLines: f.TotalLines,
			StartLine: f.StartLine, EndLine: f.EndLine, Truncated: f.Truncated}})
		part := fmt.Sprintf("%s:\n%s\n", f.Asked, f.Content)
		if f.Truncated {
			part += fmt.Sprintf("(lines %d-%d of %d: cut at the size limit; read on with read_file, %s)\n", f.StartLine, f.EndLine, f.TotalLines, f.ReadOn())
		}
		parts = append(parts, part)
	}
	text := strings.Join(parts, "\n---\n") + repairsLine(many.Repairs)
	out := result(lv.Verdict, many.Feedback+"\n\n"+text, text)
	out.StructuredContent = lv
	return out, nil
}

func (s *Server) mediaLook(ctx context.Context, req guard.ExecuteRequest) (*sdk.CallToolResult, error) {
	m, err := s.g.MediaCall(ctx, req)
	if err != nil {
		return nil, err
	}
	lv := &lookVerdict{Verdict: verdictOf(m.Verdict)}
	if !m.OK() {
		out := result(lv.Verdict, m.Feedback)
		out.StructuredContent = lv
		return out, nil
	}
	lv.Media = &Media{Path: m.Path, MIMEType: m.MIMEType, Size: len(m.Data), SHA256: m.SHA256}
	var c sdk.Content
	switch {
	case strings.HasPrefix(m.MIMEType, "image/"):
		c = &sdk.ImageContent{Data: m.Data, MIMEType: m.MIMEType}
	case strings.HasPrefix(m.MIMEType, "audio/"):
		c = &sdk.AudioContent{Data: m.Data, MIMEType: m.MIMEType}
	default:
		c = &sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///" + m.Path, MIMEType: m.MIMEType, Blob: m.Data}}
	}
	return &sdk.CallToolResult{Content: []sdk.Content{c}, StructuredContent: lv}, nil
}
