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

// Look is the outcome of a look call; Result is nil unless the verdict is usable.
type Look struct {
	*Verdict
	Result LookResult
}

// lookFunc runs a validated call of a look tool; a refusal the model can
// act on is a violation added to res, an error is the server's.
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
	ws, err := g.workspace(req.Workspace)
	if err != nil {
		return nil, err
	}
	res, err := g.check(req.ValidateRequest)
	if err != nil {
		return nil, err
	}
	if res.Tool != nil && (!isLook(res.Tool) || want != "" && res.Tool.Name() != want) {
		return nil, &WrongToolError{Tool: res.Tool.Name(), Want: cmp.Or(want, "a look tool")}
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
	// An answered look is never useless: the workspace may have changed
	// since the last one, so a repeat stays usable.
	v, err := g.conclude(ctx, req.ValidateRequest, res, res.OK())
	if err != nil {
		return nil, err
	}
	if err := g.fit(v); err != nil {
		return nil, err
	}
	out.Verdict = v
	if !v.OK() {
		out.Result = nil
	}
	return out, nil
}

// lookRequest runs a look asked for in fields (a typed RPC, the CLI) as a
// call of tool with args, counted in the session as the model's call.
func (g *Guard) lookRequest(ctx context.Context, rc RequestContext, tool string, args map[string]any) (*Look, error) {
	text, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("encode %s arguments: %w", tool, err)
	}
	return g.look(ctx, ExecuteRequest{
		ValidateRequest: ValidateRequest{SessionID: rc.SessionID, ModelID: rc.ModelID, MistakeLimit: rc.MistakeLimit,
			NoSession: rc.NoSession, Call: repair.Call{Name: tool, Form: repair.FormText, Text: string(text)}},
		Workspace: rc.Workspace,
	}, tool)
}

// RequestContext is who a request in fields belongs to.
type RequestContext struct {
	SessionID    string
	ModelID      string
	MistakeLimit uint32
	NoSession    bool
	Workspace    string
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
