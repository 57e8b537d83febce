package protoapi

import (
	"context"
	"errors"
	"io"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/repair/stream"
)

// StreamLimits are the server's bounds on streamed calls.
type StreamLimits struct {
	MaxCallBytes  int
	MaxParamBytes int
	// MaxJSONDepth bounds schemas and JSON arguments; 0 means no bound.
	MaxJSONDepth int
	// Budget, when set, is shared by every stream (MaxStreamBufferBytes).
	Budget stream.Budget
}

// TransportError wraps a failure to receive or send a frame: the client went
// away, or a frame did not decode (already a status).
type TransportError struct{ Err error }

func (e *TransportError) Error() string { return "stream transport: " + e.Err.Error() }
func (e *TransportError) Unwrap() error { return e.Err }

// StreamOptions bound a stream and scope it to its caller.
type StreamOptions struct {
	Limits StreamLimits
	// Scope checks the stream's workspace against the caller's grants and
	// returns the session key; nil grants everything (the CLI).
	Scope func(sessionID, workspace string, executes bool) (string, error)
	// Started learns the session id from the start frame (the access log).
	Started func(ctx context.Context, sessionID string)
	// AdmitCall charges each call the stream completes to the caller's rate
	// limit (guard.StreamRequest.AdmitCall); nil limits nothing (the CLI).
	AdmitCall func(ctx context.Context) error
}

// RunStream drives one stream: start, deltas and end frames in; events out,
// a done event last. The gRPC handler and the CLI share it. Errors are the
// caller's, the session store's, or a TransportError.
func RunStream(ctx context.Context, g *guard.Guard, opts StreamOptions,
	recv func() (*toolguardv1.StreamToolCallsRequest, error), send func(*toolguardv1.StreamToolCallsResponse) error) error {
	limits := opts.Limits
	first, err := recv()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return &FieldError{Field: "start", Reason: "START_FRAME_REQUIRED", Description: "the stream closed before its start frame"}
		}
		return &TransportError{Err: err}
	}
	if opts.Started != nil {
		opts.Started(ctx, first.GetStart().GetContext().GetSessionId())
	}
	in, err := streamRequestFromProto(first.GetStart(), limits, func(name string) bool { return g.Registry().Tool(name) != nil })
	if err != nil {
		return err
	}
	if opts.Scope != nil {
		if in.SessionID, err = opts.Scope(in.SessionID, in.Workspace, in.ExecuteOnComplete); err != nil {
			return err
		}
	}
	in.AdmitCall = opts.AdmitCall
	if limits.Budget != nil {
		account := &streamAccount{budget: limits.Budget}
		defer account.close()
		in.Budget = account
	}
	st, err := g.OpenStream(in)
	if err != nil {
		return err
	}
	out := eventSender{fn: send}
	for {
		msg, err := recv()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return &FieldError{Field: "end", Reason: "END_FRAME_REQUIRED", Description: "the stream closed before its end frame; send end with the model's finish reason"}
			}
			return &TransportError{Err: err}
		}
		switch f := msg.GetFrame().(type) {
		case *toolguardv1.StreamToolCallsRequest_Delta:
			deltas, err := toolDeltasFromProto(f.Delta.GetToolCalls(), in.Format)
			if err != nil {
				return err
			}
			if f.Delta.GetText() != "" {
				if err := out.all(st.Text(ctx, f.Delta.GetText())); err != nil {
					return err
				}
			}
			if len(deltas) > 0 {
				if err := out.all(st.ToolDeltas(ctx, deltas)); err != nil {
					return err
				}
			}
		case *toolguardv1.StreamToolCallsRequest_End:
			events, sum, err := st.End(ctx, f.End.GetFinishReason())
			if err := out.all(events, err); err != nil {
				return err
			}
			return out.send(&toolguardv1.StreamToolCallsResponse{Event: &toolguardv1.StreamToolCallsResponse_Done{Done: &toolguardv1.StreamDoneEvent{
				FinishReason: sum.FinishReason, Calls: uint32(sum.Calls), Mistakes: MistakesToProto(sum.Mistakes),
			}}})
		case *toolguardv1.StreamToolCallsRequest_Start:
			return &FieldError{Field: "start", Reason: "START_FRAME_REPEATED", Description: "a stream has one start frame, first"}
		default:
			return &FieldError{Field: "frame", Reason: "FRAME_REQUIRED", Description: "each frame must set start, delta or end"}
		}
	}
}

type eventSender struct {
	fn func(*toolguardv1.StreamToolCallsResponse) error
}

// all sends the events a step produced, even when it failed, so the client
// sees what completed.
func (o eventSender) all(events []guard.StreamEvent, stepErr error) error {
	for _, e := range events {
		resp, err := StreamEventToProto(e)
		if err != nil {
			return err
		}
		if err := o.send(resp); err != nil {
			return err
		}
	}
	return stepErr
}

func (o eventSender) send(resp *toolguardv1.StreamToolCallsResponse) error {
	if err := o.fn(resp); err != nil {
		return &TransportError{Err: err}
	}
	return nil
}

// StreamEventToProto converts a stream event to its API form.
func StreamEventToProto(e guard.StreamEvent) (*toolguardv1.StreamToolCallsResponse, error) {
	index := uint32(max(e.Index, 0))
	switch e.Kind {
	case stream.EventText:
		return &toolguardv1.StreamToolCallsResponse{Event: &toolguardv1.StreamToolCallsResponse_Text{Text: &toolguardv1.TextEvent{Text: e.Text}}}, nil
	case stream.EventCallStarted:
		return &toolguardv1.StreamToolCallsResponse{Event: &toolguardv1.StreamToolCallsResponse_CallStarted{CallStarted: &toolguardv1.CallStartedEvent{
			Index: index, Id: e.ID, ToolName: e.ToolName, RawName: e.RawName, Known: e.Known,
		}}}, nil
	case stream.EventParam:
		u := &toolguardv1.ParamUpdateEvent{Index: index, Param: e.Param}
		if e.JSON != "" {
			u.Value = &toolguardv1.ParamUpdateEvent_ValueJson{ValueJson: e.JSON}
		} else {
			u.Value = &toolguardv1.ParamUpdateEvent_Append{Append: e.Text}
		}
		return &toolguardv1.StreamToolCallsResponse{Event: &toolguardv1.StreamToolCallsResponse_ParamUpdate{ParamUpdate: u}}, nil
	case stream.EventCallClosed:
		v, err := VerdictToProto(e.Verdict, e.ID)
		if err != nil {
			return nil, err
		}
		c := &toolguardv1.CallCompleteEvent{Index: index, Verdict: v, Truncated: e.Truncated}
		if ex := e.Execution; ex != nil {
			edit := ExecutionToEditResponse(v, ex)
			c.Execution = &toolguardv1.Execution{Edits: edit.Edits, Changes: edit.Changes, Diff: edit.Diff, DiffElided: edit.DiffElided, Applied: edit.Applied,
				SyntaxChecks: edit.SyntaxChecks}
		}
		return &toolguardv1.StreamToolCallsResponse{Event: &toolguardv1.StreamToolCallsResponse_CallComplete{CallComplete: c}}, nil
	default: // stream.EventError
		ev := &toolguardv1.StreamErrorEvent{Code: e.Code, Message: e.Text}
		if e.Index >= 0 {
			ev.Index = &index
		}
		return &toolguardv1.StreamToolCallsResponse{Event: &toolguardv1.StreamToolCallsResponse_Error{Error: ev}}, nil
	}
}

// streamAccount is one stream's draw on the shared budget; close gives back
// what a stream ended early still holds.
type streamAccount struct {
	budget stream.Budget
	held   int
}

func (a *streamAccount) Grow(n int) bool {
	if !a.budget.Grow(n) {
		return false
	}
	a.held += n
	return true
}

func (a *streamAccount) Release(n int) {
	a.held -= n
	a.budget.Release(n)
}

func (a *streamAccount) close() {
	if a.held > 0 {
		a.budget.Release(a.held)
		a.held = 0
	}
}
