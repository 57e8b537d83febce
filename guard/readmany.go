package guard

import (
	"context"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/workspace"
)

// MaxReadFiles bounds the files of one read_multiple_files call.
const MaxReadFiles = 50

// FileRead is one file's answer of read_multiple_files: its text, or the
// refusal beside it.
type FileRead struct {
	// Asked is the path as given.
	Asked string
	FileText
	Error *repair.Violation
}

// ReadMany is the outcome of read_multiple_files: each file's answer, in
// the order asked, whether or not the verdict is usable (it is not when no
// file could be read).
type ReadMany struct {
	*Verdict
	Files []FileRead
}

// ReadFilesRequest asks for several files, in fields.
type ReadFilesRequest struct {
	LookContext
	Paths []string
	// Head and Tail return each file's first or last lines (not both).
	Head, Tail  int
	LineNumbers bool
}

// ReadFiles reads files as the ReadFiles RPC asks: a call of
// read_multiple_files, counted in the session as the model's.
func (g *Guard) ReadFiles(ctx context.Context, req ReadFilesRequest) (*ReadMany, error) {
	args := map[string]any{"paths": nonNil(req.Paths)}
	if req.Head != 0 {
		args["head"] = req.Head
	}
	if req.Tail != 0 {
		args["tail"] = req.Tail
	}
	if req.LineNumbers {
		args["line_numbers"] = true
	}
	call, err := req.call(ReadFilesToolName, args)
	if err != nil {
		return nil, err
	}
	return g.ReadFilesCall(ctx, call)
}

// ReadFilesCall repairs and validates a read_multiple_files call (under any
// of its names) and reads each file through the one text read (readText).
// The answer's bytes are shared: each file gets what is left divided by the
// files still to read, so a short file leaves more to those after it, and
// a file cut at its share says where to read on.
func (g *Guard) ReadFilesCall(ctx context.Context, req ExecuteRequest) (*ReadMany, error) {
	out := &ReadMany{}
	v, err := g.lookFiles(ctx, req, ReadFilesToolName, func(ws *workspace.Workspace, res *repair.Result) error {
		paths, bad := pathsArg(res.Args, false, MaxReadFiles)
		if bad != nil {
			res.Violate(bad.Code, bad.Param, bad.Message)
			return nil
		}
		rng, numbered, bad := rangeOf(res.Args, false)
		if bad != nil {
			res.Violate(bad.Code, bad.Param, bad.Message)
			return nil
		}
		return g.readEach(ws, res, out, paths, rng, numbered)
	})
	if err != nil {
		return nil, err
	}
	out.Verdict = v
	return out, nil
}

func (g *Guard) readEach(ws *workspace.Workspace, res *repair.Result, out *ReadMany, paths []string, rng lineRange, numbered bool) error {
	left := g.maxReadBytes()
	errs := make([]*repair.Violation, len(paths))
	for i, p := range paths {
		share := left / (len(paths) - i)
		text, bad, err := g.readText(ws, p, rng, numbered, share)
		if err != nil {
			return err
		}
		if bad != nil {
			bad.Param = "paths"
		}
		left -= len(text.Content)
		out.Files = append(out.Files, FileRead{Asked: p, FileText: text, Error: bad})
		errs[i] = bad
	}
	noneServed(res, errs)
	return nil
}
