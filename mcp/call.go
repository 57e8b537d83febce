package mcp

import (
	"context"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/guard/failure"
	"github.com/toolguard/toolguard/repair"
)

// handler runs one tool's calls through the guard: the arguments as the
// model wrote them, counted in the MCP session.
func (s *Server) handler(tool string, action guard.Action, modelID string) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (res *sdk.CallToolResult, err error) {
		defer func(start time.Time) { s.metrics.call(tool, start, res, err) }(time.Now())
		c := callerOf(req)
		ws, refusal := s.workspaceFor(ctx, req.Session, c)
		if refusal != "" {
			return errorResult(refusal), nil
		}
		vr := guard.ValidateRequest{
			SessionID: sessionKey(c, s.sessionID(req.Session)),
			ModelID:   modelID,
			// The SDK hands the arguments over as sent: repairs see them whole.
			Call: repair.Call{Name: tool, Form: repair.FormText, Text: string(req.Params.Arguments)},
		}
		p := newProgress(ctx, req)
		p.step("checking the call")
		if err := ctx.Err(); err != nil {
			return nil, err // cancelled: nothing done
		}
		xr := guard.ExecuteRequest{ValidateRequest: vr, Workspace: ws}
		if action == guard.ActionWrite || action == guard.ActionEdit {
			res, err = s.once(ctx, idempotencyKey(req), tool, xr, func(ctx context.Context) (*sdk.CallToolResult, error) {
				return s.run(ctx, tool, action, xr)
			})
		} else {
			res, err = s.run(ctx, tool, action, xr)
		}
		p.done()
		if err != nil {
			return s.failure(tool, err)
		}
		return res, nil
	}
}

// run carries out one call and renders its outcome.
func (s *Server) run(ctx context.Context, tool string, action guard.Action, req guard.ExecuteRequest) (*sdk.CallToolResult, error) {
	switch action {
	case guard.ActionWrite, guard.ActionEdit:
		execute := s.g.ExecuteWrite
		if action == guard.ActionEdit {
			execute = s.g.ExecuteEdit
		}
		ex, err := execute(ctx, req)
		if err != nil {
			return nil, err
		}
		return executionResult(ex), nil
	case guard.ActionLook:
		lk, err := s.g.LookCall(ctx, req)
		if err != nil {
			return nil, err
		}
		return lookResult(lk), nil
	case guard.ActionRead:
		r, err := s.g.ReadCall(ctx, req)
		if err != nil {
			return nil, err
		}
		return readResult(r), nil
	}
	v, err := s.g.Validate(ctx, req.ValidateRequest)
	if err != nil {
		return nil, err
	}
	return validateResult(v), nil
}

// failure renders a guard error by its kind (failure.Classify): what the
// model can act on is a tool result with isError set, saying what to do;
// the server's own faults and a cancelled call are protocol errors.
func (s *Server) failure(tool string, err error) (*sdk.CallToolResult, error) {
	f := failure.Classify(err)
	switch f.Kind {
	case failure.Canceled, failure.Timeout:
		return nil, err
	case failure.Internal:
		s.log.Error("mcp: call failed", zap.String("tool", tool), zap.Error(err))
		return nil, fmt.Errorf("toolguard: internal error in %s", tool)
	case failure.Unavailable:
		return nil, fmt.Errorf("toolguard: %s", f.Message)
	case failure.StoreDegraded:
		s.storeDown.Warn(zap.String("tool", tool), zap.Error(err))
	}
	return errorResult(failureText(f)), nil
}

// failureText is the sentence a model reads for a failure that is not its
// call's: what happened, whether anything was written, what to do.
func failureText(f failure.Failure) string {
	switch f.Kind {
	case failure.Conflict:
		if f.Reason == failure.IdempotencyReplyLost {
			return f.Message
		}
		return fmt.Sprintf("%s changed while toolguard was working on it; read it again and redo the change. Nothing was written.", f.Subject)
	case failure.NotFound:
		return fmt.Sprintf("toolguard has no workspace to act on (%v); the server was started without one.", f.Err)
	case failure.StoreDegraded:
		return "toolguard's session store cannot be reached; send the call again in a moment."
	}
	// Locked says to send the call again; Storage what would help.
	return f.Message
}

func errorResult(text string) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: text}}}
}

// progress reports a call's steps when the client asked for them with a
// progress token.
type progress struct {
	ctx   context.Context
	req   *sdk.CallToolRequest
	token any
}

func newProgress(ctx context.Context, req *sdk.CallToolRequest) progress {
	return progress{ctx: ctx, req: req, token: req.Params.GetProgressToken()}
}

func (p progress) notify(n float64, msg string) {
	if p.token == nil || p.req.Session == nil {
		return
	}
	// A lost notification costs nothing but the report.
	_ = p.req.Session.NotifyProgress(p.ctx, &sdk.ProgressNotificationParams{ProgressToken: p.token, Progress: n, Total: 2, Message: msg})
}

func (p progress) step(msg string) { p.notify(1, msg) }
func (p progress) done()           { p.notify(2, "done") }

// repairsLine lists what was repaired, for the model to learn from.
func repairsLine(rs []repair.Repair) string {
	if len(rs) == 0 {
		return ""
	}
	parts := make([]string, 0, len(rs))
	for _, r := range rs {
		parts = append(parts, r.Detail)
	}
	return "Repaired: " + strings.Join(parts, "; ") + ".\n"
}
