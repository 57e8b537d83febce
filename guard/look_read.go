package guard

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/workspace"
)

// The read-only built-in tools of info, read-several and media: each
// answers about files and changes nothing.
const (
	InfoToolName      = "get_file_info"
	ReadFilesToolName = "read_multiple_files"
	MediaToolName     = "read_media_file"
)

var readLookTools = []string{InfoToolName, ReadFilesToolName, MediaToolName}

func isReadLookTool(name string) bool { return slices.Contains(readLookTools, name) }

// LookContext is who a read-only request asked for in fields belongs to
// (the RPCs and the CLI): counted in the session as the model's call.
type LookContext struct {
	SessionID    string
	ModelID      string
	MistakeLimit uint32
	NoSession    bool
	Workspace    string
}

// call is the call of tool the model would have made with args.
func (c LookContext) call(tool string, args map[string]any) (ExecuteRequest, error) {
	text, err := json.Marshal(args)
	if err != nil {
		return ExecuteRequest{}, fmt.Errorf("encode %s arguments: %w", tool, err)
	}
	return ExecuteRequest{
		ValidateRequest: ValidateRequest{SessionID: c.SessionID, ModelID: c.ModelID, MistakeLimit: c.MistakeLimit,
			NoSession: c.NoSession, Call: repair.Call{Name: tool, Form: repair.FormText, Text: string(text)}},
		Workspace: c.Workspace,
	}, nil
}

// lookFiles checks a read-only call of tool, runs it when usable (run adds the
// violations that make it a mistake: no path could be served) and counts it
// in its session. A look answered is never a repeat: the files may have
// changed since.
func (g *Guard) lookFiles(ctx context.Context, req ExecuteRequest, tool string, run func(*workspace.Workspace, *repair.Result) error) (*Verdict, error) {
	ws, err := g.workspace(req.Workspace)
	if err != nil {
		return nil, err
	}
	res, err := g.check(req.ValidateRequest)
	if err != nil {
		return nil, err
	}
	if res.Tool != nil && res.Tool.Name() != tool {
		return nil, &WrongToolError{Tool: res.Tool.Name(), Want: tool}
	}
	if res.OK() {
		if err := run(ws, res); err != nil {
			return nil, err
		}
	}
	v, err := g.conclude(ctx, req.ValidateRequest, res, res.OK())
	if err != nil {
		return nil, err
	}
	if err := g.fit(v); err != nil {
		return nil, err
	}
	return v, nil
}

// pathsArg returns the paths of a call's `paths` (and `path`, when one is
// taken), at most maxPaths of them, or the violation that refuses them.
func pathsArg(args map[string]any, withPath bool, maxPaths int) ([]string, *repair.Violation) {
	var paths []string
	if p, ok := args["path"].(string); ok && withPath {
		paths = append(paths, p)
	}
	list, _ := args["paths"].([]any)
	for _, p := range list {
		s, ok := p.(string)
		if !ok {
			return nil, &repair.Violation{Code: repair.CodeWrongType, Param: "paths", Message: "paths must be a list of strings"}
		}
		paths = append(paths, s)
	}
	switch {
	case len(paths) == 0 && withPath:
		return nil, &repair.Violation{Code: repair.CodeMissingRequired, Param: "paths", Message: "give `path` (one path) or `paths` (a list of paths)"}
	case len(paths) == 0:
		return nil, &repair.Violation{Code: repair.CodeMissingRequired, Param: "paths", Message: "`paths` is empty; give at least one path"}
	case len(paths) > maxPaths:
		return nil, &repair.Violation{Code: repair.CodeInvalidValue, Param: "paths", Message: fmt.Sprintf("%d paths given; one call takes at most %d, so split it", len(paths), maxPaths)}
	}
	return paths, nil
}

// pathViolation is a refusal of one path, as a violation beside it.
func pathViolation(err error) *repair.Violation {
	return &repair.Violation{Code: violationCode(err), Param: "paths", Message: err.Error()}
}

// noneServed makes a call whose every path failed a mistake: each path's
// refusal becomes a violation of the call.
func noneServed(res *repair.Result, errs []*repair.Violation) {
	for _, e := range errs {
		if e == nil {
			return
		}
	}
	for _, e := range errs {
		res.Violate(e.Code, e.Param, e.Message)
	}
}

// nonNil is paths, or an empty list: JSON's null is no list of paths.
func nonNil(paths []string) []string {
	if paths == nil {
		return []string{}
	}
	return paths
}
