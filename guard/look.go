package guard

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/workspace"
)

// Looking around (list, find, and the other read-only operations of the
// file server) is one path: a registry tool whose name has a look function
// is repaired and validated like any call, run against the workspace and
// counted once; a refused path or pattern is a violation with feedback.
// Each operation registers itself by name (registerLook, in its own file),
// so the front ends serve a new one without changes: ActionOf says
// ActionLook, LookCall runs it, and the result renders itself.

// LookResult is what a look operation found.
type LookResult interface {
	// Text is the result as the model reads it: concise, one entry a line,
	// saying what was left out.
	Text() string
}

// LookMedia is a LookResult whose answer is a file's bytes rather than text
// (read_media_file): a front end that carries media (MCP's image and audio
// content) gives them as they are; Text only describes them.
type LookMedia interface {
	LookResult
	Media() (path, mimeType string, data []byte)
}

// Look is the outcome of a look call. Result is what the look function
// answered: nil when the call was refused as a whole; beside an unusable
// verdict, each part's refusal (a call none of whose paths was served).
type Look struct {
	*Verdict
	Result LookResult
}

// lookFunc runs a validated call of a look tool; a refusal the model can
// act on is a violation added to res (and a nil result, unless the result
// says each part's refusal), an error is the server's.
type lookFunc func(g *Guard, ctx context.Context, ws *workspace.Workspace, res *repair.Result) (LookResult, error)

var lookTools = map[string]lookFunc{}

// registerLook makes the built-in tool name a look tool (at init).
func registerLook(name string, f lookFunc) { lookTools[name] = f }

// isLook reports whether t is a built-in look tool.
func isLook(t *repair.Tool) bool { return t.Builtin() && lookTools[t.Name()] != nil }

// LookTimeout bounds the time one look operation walks the workspace; what
// it found by then is answered, saying it was cut.
const LookTimeout = 10 * time.Second

// LookCall repairs and validates a call of a look tool (under any of its
// names) and runs it.
func (g *Guard) LookCall(ctx context.Context, req ExecuteRequest) (*Look, error) {
	return g.look(ctx, req, "")
}

// look is LookCall; want, when set, is the one tool the call may be (a
// typed RPC's).
func (g *Guard) look(ctx context.Context, req ExecuteRequest, want string) (*Look, error) {
	ws, res, err := g.checkFor(req, func(t *repair.Tool) bool { return isLook(t) && (want == "" || t.Name() == want) }, cmp.Or(want, "a look tool"))
	if err != nil {
		return nil, err
	}
	out := &Look{}
	if res.OK() {
		wctx, cancel := context.WithTimeout(ctx, g.lookTimeout(res.Tool.Name()))
		out.Result, err = lookTools[res.Tool.Name()](g, wctx, ws, res)
		cancel()
		if err != nil {
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	v, err := g.concludeAnswered(ctx, req.ValidateRequest, res)
	if err != nil {
		return nil, err
	}
	out.Verdict = v
	return out, nil
}

// concludeAnswered counts a call that only reads (a look, a read) and fits
// its verdict to the answer's budget. Answered, it is never useless: what
// it read may have changed since the last one, so a repeat stays usable.
func (g *Guard) concludeAnswered(ctx context.Context, req ValidateRequest, res *repair.Result) (*Verdict, error) {
	v, err := g.conclude(ctx, req, res, res.OK())
	if err != nil {
		return nil, err
	}
	if err := g.fit(v); err != nil {
		return nil, err
	}
	return v, nil
}

// lookRequest runs a look asked for in fields (a typed RPC, the CLI) as a
// call of tool with args, counted in the session as the model's call.
func (g *Guard) lookRequest(ctx context.Context, rc RequestContext, tool string, args map[string]any) (*Look, error) {
	req, err := rc.call(tool, args)
	if err != nil {
		return nil, err
	}
	return g.look(ctx, req, tool)
}

// RequestContext is who a request in fields belongs to.
type RequestContext struct {
	SessionID    string
	ModelID      string
	MistakeLimit uint32
	NoSession    bool
	Workspace    string
}

// call is the call of tool the model would have made with args.
func (rc RequestContext) call(tool string, args map[string]any) (ExecuteRequest, error) {
	text, err := json.Marshal(args)
	if err != nil {
		return ExecuteRequest{}, fmt.Errorf("encode %s arguments: %w", tool, err)
	}
	return ExecuteRequest{
		ValidateRequest: ValidateRequest{SessionID: rc.SessionID, ModelID: rc.ModelID, MistakeLimit: rc.MistakeLimit,
			NoSession: rc.NoSession, Call: repair.Call{Name: tool, Form: repair.FormText, Text: string(text)}},
		Workspace: rc.Workspace,
	}, nil
}

// setFields keeps of a request's fields, named as the tool's arguments, those
// set: a field left at its zero value is an argument the model left out.
// The arguments a call always carries are added after.
func setFields(fields map[string]any) map[string]any {
	for name, v := range fields {
		unset := false
		switch v := v.(type) {
		case string:
			unset = v == ""
		case int:
			unset = v == 0
		case bool:
			unset = !v
		case []string:
			unset = len(v) == 0
		}
		if unset {
			delete(fields, name)
		}
	}
	return fields
}

// stringList reads an array-of-strings argument (a single string is one).
func stringList(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		out := make([]string, 0, len(x))
		for _, s := range x {
			if s, ok := s.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
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
