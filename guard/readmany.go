package guard

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/workspace"
)

const (
	// ReadFilesToolName reads several text files in one call.
	ReadFilesToolName = "read_multiple_files"
	// MaxReadFiles bounds the files of one read_multiple_files call.
	MaxReadFiles = 50
)

func init() { registerLook(ReadFilesToolName, (*Guard).readFilesCall) }

// FileRead is one file's answer of read_multiple_files: its text, or the
// refusal beside it.
type FileRead struct {
	// Asked is the path as given.
	Asked string
	FileText
	Error *repair.Violation
}

// ReadMany is what read_multiple_files answers: each file's answer, in the
// order asked; it stands beside an unusable verdict when no file could be
// read.
type ReadMany struct {
	Files []FileRead
}

// ReadFilesRequest asks for several files, in fields.
type ReadFilesRequest struct {
	RequestContext
	Paths []string
	// Head and Tail return each file's first or last lines (not both).
	Head, Tail  int
	LineNumbers bool
}

// ReadFiles reads files as the ReadFiles RPC asks: a call of
// read_multiple_files, counted in the session as the model's.
func (g *Guard) ReadFiles(ctx context.Context, req ReadFilesRequest) (*Look, error) {
	args := setFields(map[string]any{"head": req.Head, "tail": req.Tail, "line_numbers": req.LineNumbers})
	args["paths"] = nonNil(req.Paths)
	return g.lookRequest(ctx, req.RequestContext, ReadFilesToolName, args)
}

// readFilesCall reads each file of a read_multiple_files call through the
// one text read (readText). The answer's bytes are shared: each file gets
// what is left divided by the files still to read, so a short file leaves
// more to those after it, and a file cut at its share says where to read on.
func (g *Guard) readFilesCall(_ context.Context, ws *workspace.Workspace, res *repair.Result) (LookResult, error) {
	paths, bad := pathsArg(res.Args, false, MaxReadFiles)
	if bad != nil {
		res.Violate(bad.Code, bad.Param, bad.Message)
		return nil, nil
	}
	rng, numbered, bad := rangeOf(res.Args, false)
	if bad != nil {
		res.Violate(bad.Code, bad.Param, bad.Message)
		return nil, nil
	}
	out := &ReadMany{}
	left := g.maxReadBytes()
	errs := make([]*repair.Violation, len(paths))
	for i, p := range paths {
		share := left / (len(paths) - i)
		text, bad, err := g.readText(ws, p, rng, numbered, share)
		if err != nil {
			return nil, err
		}
		if bad != nil {
			bad.Param = "paths"
		}
		left -= len(text.Content)
		out.Files = append(out.Files, FileRead{Asked: p, FileText: text, Error: bad})
		errs[i] = bad
	}
	noneServed(res, errs)
	return out, nil
}

// Text gives each file's text under its path, or "path: Error - why", the
// files apart by "\n---\n", as the reference file server writes them.
func (many *ReadMany) Text() string {
	parts := make([]string, 0, len(many.Files))
	for _, f := range many.Files {
		if f.Error != nil {
			parts = append(parts, fmt.Sprintf("%s: Error - %s", f.Asked, f.Error.Message))
			continue
		}
		part := fmt.Sprintf("%s:\n%s\n", f.Asked, f.Content)
		if f.Truncated {
			part += fmt.Sprintf("(lines %d-%d of %d: cut at the size limit; read on with read_file, %s)\n", f.StartLine, f.EndLine, f.TotalLines, f.ReadOn())
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, "\n---\n")
}

// fileReadJSON is one file as structured answers give it: what was read
// (the text itself is the answer's), or the refusal.
type fileReadJSON struct {
	Path  string            `json:"path"`
	Read  *FileText         `json:"read,omitempty"`
	Error *repair.Violation `json:"error,omitempty"`
}

// MarshalJSON gives the files as {"files": [...]}, without their text.
func (many *ReadMany) MarshalJSON() ([]byte, error) {
	files := make([]fileReadJSON, 0, len(many.Files))
	for _, f := range many.Files {
		if f.Error != nil {
			files = append(files, fileReadJSON{Path: f.Asked, Error: f.Error})
			continue
		}
		files = append(files, fileReadJSON{Path: f.Asked, Read: &f.FileText})
	}
	return json.Marshal(struct {
		Files []fileReadJSON `json:"files"`
	}{files})
}
