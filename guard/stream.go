package guard

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/repair/stream"
	"github.com/toolguard/toolguard/workspace"
)

// StreamRequest opens a stream of a model's response.
type StreamRequest struct {
	SessionID    string
	ModelID      string
	Workspace    string
	MistakeLimit uint32
	Format       stream.Format
	// Tools are definitions of tools the server does not know.
	Tools []repair.ToolDef
	// ToolNames restricts the server's tools in play; empty means all.
	ToolNames []string
	// ExecuteOnComplete runs each complete, usable write or edit call, with
	// DryRun and Partial.
	ExecuteOnComplete bool
	DryRun            bool
	Partial           bool
	// IdempotencyKey, with ExecuteOnComplete, runs each call at most once
	// per session for the key and the call's index (streamOnce).
	IdempotencyKey string
	// Bounds on calls, values and JSON nesting; zero means no bound.
	MaxCallBytes  int
	MaxParamBytes int
	MaxJSONDepth  int

	// Budget, when set, is shared with other streams for the open calls.
	Budget stream.Budget
	// AdmitCall, when set, is asked before each closed call is validated:
	// the caller's rate limit, which counts the calls a stream completes as
	// it counts other calls. Its error, saying when to retry, drops the
	// call with a RATE_LIMITED error event.
	AdmitCall func(ctx context.Context) error
}

// StreamEvent is one event of a stream, for the caller.
type StreamEvent struct {
	Kind  stream.EventKind
	Index int // -1 for text
	ID    string
	// EventCallStarted: canonical name (as written when unknown), name as
	// written, known.
	ToolName string
	RawName  string
	Known    bool
	// EventParam: the parameter and its growth (Text) or complete
	// non-string value (JSON).
	Param string
	JSON  string
	// EventText: text; EventParam: string growth; EventError: message.
	Text string
	// EventCallClosed: the verdict, truncation, and execution when it ran.
	Verdict   *Verdict
	Truncated bool
	Execution *Execution
	// EventError: a stable code.
	Code string
}

// StreamSummary concludes a stream.
type StreamSummary struct {
	FinishReason string
	Calls        int
	Mistakes     MistakeState
}

// Error codes of stream error events raised here, beside the parser's.
const (
	// CodeExecutionFailed: the file changed under a usable call; the
	// verdict stands, nothing was written.
	CodeExecutionFailed = "EXECUTION_FAILED"
	// CodeRateLimited: the caller is over its rate limit; the call was
	// neither validated nor executed, and counts as no mistake.
	CodeRateLimited = "RATE_LIMITED"
	// CodeAlreadyExecuted: an earlier stream with the same idempotency key
	// executed the call (or still does); it was not executed again.
	CodeAlreadyExecuted = "ALREADY_EXECUTED"
)

// Stream follows one model response, fed in order by one goroutine.
type Stream struct {
	g      *Guard
	req    StreamRequest
	extra  []*repair.Tool
	parser *stream.Parser
	calls  map[int]*streamCall
	closed int
	// last is the parameter shown last: previews of one value follow each
	// other.
	last struct {
		index     int
		raw, name string
	}

	ctx context.Context
	out []StreamEvent
	err error
}

type streamCall struct {
	tool *repair.Tool
	// shown maps canonical parameters to the model's spelling, so two
	// spellings of one parameter are never merged.
	shown map[string]string
}

// OpenStream starts following a response. Errors are the caller's.
func (g *Guard) OpenStream(req StreamRequest) (*Stream, error) {
	extra, err := g.compileTools(req.Tools)
	if err != nil {
		return nil, err
	}
	if req.ExecuteOnComplete {
		if _, err := g.workspace(req.Workspace); err != nil {
			return nil, err
		}
	}
	s := &Stream{g: g, req: req, extra: extra, calls: map[int]*streamCall{}}
	opts := stream.Options{MaxCallBytes: req.MaxCallBytes, MaxParamBytes: req.MaxParamBytes, MaxJSONDepth: req.MaxJSONDepth, Budget: req.Budget,
		ParamText: s.paramText}
	if !req.Format.Structured() {
		// XMLTags finds calls by their tags; qwen_xml and minimax end an
		// unclosed value only at a parameter the tool declares.
		opts.Tools = g.toolTags(req.ToolNames, extra)
	}
	s.parser, err = stream.New(req.Format, opts, s.event)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// toolTags lists the tools a text format may call, by every name that opens
// a call, with the parameters' spellings.
func (g *Guard) toolTags(names []string, extra []*repair.Tool) map[string]stream.ToolTags {
	owner := map[string]*repair.Tool{}
	add := func(t *repair.Tool) {
		for _, name := range append([]string{t.Name()}, t.Def().Aliases...) {
			if _, taken := owner[name]; !taken {
				owner[name] = t
			}
		}
	}
	for _, t := range extra {
		add(t)
	}
	for _, t := range g.reg.Tools() {
		if len(names) == 0 || slices.Contains(names, t.Name()) {
			add(t)
		}
	}
	out := make(map[string]stream.ToolTags, len(owner))
	byTool := map[*repair.Tool]stream.ToolTags{}
	for name, t := range owner {
		if len(extra) > 0 && !slices.Contains(extra, t) {
			// A built-in's name or alias may stand for a declared tool
			// (repair.Registry.Resolve): its values end at that tool's
			// parameters.
			if d, _ := g.reg.Resolve(name, extra); slices.Contains(extra, d) {
				t = d
			}
		}
		tags, ok := byTool[t]
		if !ok {
			tags = stream.ToolTags{Params: map[string]bool{}}
			for spelling, canonical := range t.ParamSpellings() {
				tags.Params[spelling] = t.IsContentParam(canonical)
			}
			byTool[t] = tags
		}
		out[name] = tags
	}
	return out
}

// Text feeds model text; the events are valid until the next call.
func (s *Stream) Text(ctx context.Context, text string) ([]StreamEvent, error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	return s.finish(s.parser.Text(text))
}

// ToolDeltas feeds structured call fragments (OpenAI, Anthropic).
func (s *Stream) ToolDeltas(ctx context.Context, deltas []stream.ToolDelta) ([]StreamEvent, error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	for i := range deltas {
		// Field by field: copying the delta whole reads it in 16-byte
		// words the caller has just written in 8-byte ones, which stalls.
		d := &deltas[i]
		if err := s.parser.ToolDelta(stream.ToolDelta{Index: d.Index, ID: d.ID, Name: d.Name, Arguments: d.Arguments, Done: d.Done}); err != nil {
			return s.finish(err)
		}
	}
	return s.finish(nil)
}

// End closes the response: open calls are concluded, truncated when they
// never closed or the reason is a length limit.
func (s *Stream) End(ctx context.Context, finishReason string) ([]StreamEvent, StreamSummary, error) {
	if err := s.begin(ctx); err != nil {
		return nil, StreamSummary{}, err
	}
	events, err := s.finish(s.parser.End(stream.IsLengthLimit(finishReason)))
	s.ctx = nil
	if err != nil {
		return events, StreamSummary{}, err
	}
	m, err := s.g.summaryMistakes(ctx, s.req.SessionID, s.req.MistakeLimit)
	if err != nil {
		return events, StreamSummary{}, err
	}
	return events, StreamSummary{FinishReason: finishReason, Calls: s.closed, Mistakes: m}, nil
}

// begin starts one parser step, collecting its events and concluding the
// calls that close in it.
func (s *Stream) begin(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	// Fields are written only when they change: each pointer written costs
	// a write barrier while the collector marks, and a step may be one
	// small fragment. ctx stays until the next step or End.
	s.ctx, s.out = ctx, s.out[:0]
	if s.err != nil {
		s.err = nil
	}
	return nil
}

func (s *Stream) finish(err error) ([]StreamEvent, error) {
	if err == nil {
		err = s.err
	}
	return s.out, err
}

func (s *Stream) event(e stream.Event) {
	if s.err != nil {
		return // the stream is failing; the rest does not matter
	}
	switch e.Kind {
	case stream.EventText:
		s.out = append(s.out, StreamEvent{Kind: e.Kind, Index: -1, Text: e.Text})
	case stream.EventCallStarted:
		c := &streamCall{shown: map[string]string{}}
		s.calls[e.Index] = c
		s.last.raw = ""
		ev := StreamEvent{Kind: e.Kind, Index: e.Index, ID: e.ID, ToolName: e.Name, RawName: e.Name}
		if t, _ := s.g.reg.Resolve(e.Name, s.extra); t != nil {
			c.tool, ev.ToolName, ev.Known = t, t.Name(), true
		} else {
			ev.Known = s.g.reg.IsMultiplexer(e.Name)
		}
		s.out = append(s.out, ev)
	case stream.EventParam:
		s.out = append(s.out, StreamEvent{Kind: e.Kind, Index: e.Index, Param: s.paramName(e.Index, e.Param), Text: e.Text, JSON: e.JSON})
	case stream.EventCallClosed:
		delete(s.calls, e.Index)
		s.last.raw = ""
		if refused, ok := s.admit(e.Index); !ok {
			s.out = append(s.out, refused)
			return
		}
		s.closed++
		ev, err := s.conclude(e)
		if err != nil {
			s.err = err
			return
		}
		s.out = append(s.out, ev...)
	case stream.EventError:
		s.out = append(s.out, StreamEvent{Kind: e.Kind, Index: e.Index, Code: e.Code, Text: e.Text})
	}
}

// admit takes a closed call's turn under the caller's rate limit. A refused
// call is dropped before any work: not validated, not executed, and not the
// model's mistake, so the session's count is left alone.
func (s *Stream) admit(index int) (StreamEvent, bool) {
	if s.req.AdmitCall == nil {
		return StreamEvent{}, true
	}
	err := s.req.AdmitCall(s.ctx)
	if err == nil {
		return StreamEvent{}, true
	}
	return StreamEvent{Kind: stream.EventError, Index: index, Code: CodeRateLimited,
		Text: fmt.Sprintf("call %d was neither validated nor executed, and counts as no mistake: %v", index, err)}, false
}

// paramText is a string parameter's growth, the event a delta most often
// brings: it comes without a stream.Event to build and copy.
func (s *Stream) paramText(index int, param, text string) {
	if s.err != nil {
		return
	}
	n := len(s.out)
	if n == cap(s.out) {
		s.out = append(s.out, StreamEvent{})
	} else {
		s.out = s.out[:n+1]
	}
	// The slot is filled field by field, and cleared only when it held
	// another kind of event (a parameter event sets no other field): the
	// whole struct built and copied costs a stall and, while the collector
	// marks, a barrier on each of its pointers.
	e := &s.out[n]
	if e.Kind != stream.EventParam {
		*e = StreamEvent{Kind: stream.EventParam}
	}
	e.Index, e.Text = index, text
	if name := s.paramName(index, param); e.Param != name {
		e.Param = name // most often the slot's own: a step shows one value
	}
	if e.JSON != "" {
		e.JSON = ""
	}
}

// paramName shows a parameter under its canonical name, unless another
// spelling was shown first.
func (s *Stream) paramName(index int, raw string) string {
	if s.last.index == index && s.last.raw == raw && raw != "" {
		return s.last.name
	}
	name := s.canonicalParam(index, raw)
	s.last.index, s.last.raw, s.last.name = index, raw, name
	return name
}

func (s *Stream) canonicalParam(index int, raw string) string {
	c := s.calls[index]
	if c == nil || c.tool == nil {
		return raw
	}
	canonical := c.tool.CanonicalParam(raw)
	if canonical == "" {
		return raw
	}
	if first, ok := c.shown[canonical]; ok && first != raw {
		return raw
	}
	c.shown[canonical] = raw
	return canonical
}

// conclude validates a closed call, executes it when asked, and counts it.
func (s *Stream) conclude(e stream.Event) ([]StreamEvent, error) {
	req := ExecuteRequest{
		ValidateRequest: ValidateRequest{SessionID: s.req.SessionID, ModelID: s.req.ModelID,
			MistakeLimit: s.req.MistakeLimit, Call: e.Call, CallID: e.ID, Tools: s.req.Tools, Truncated: e.Truncated},
		Workspace: s.req.Workspace, DryRun: s.req.DryRun, Partial: s.req.Partial,
	}
	res, err := s.g.check(req.ValidateRequest)
	if err != nil {
		return nil, err
	}
	truncated := res.Has(repair.CodeTruncated)
	var out []StreamEvent
	var ex *Execution
	run := s.g.runner(res)
	// In observe mode the call is judged as if it were to run, and left to
	// the client: nothing is written.
	executes := s.req.ExecuteOnComplete && !s.g.observeOnly
	if !executes || truncated || run == nil {
		readEdits(res)
	}
	if executes && !truncated && run != nil && res.OK() {
		ws, err := s.g.workspace(req.Workspace)
		if err != nil {
			return nil, err
		}
		ex = &Execution{}
		ran, err := s.once(e, func() error { return run(s.ctx, ws, withExpected(req, res), res, ex) })
		if !ran && err == nil {
			ex = nil
			out = append(out, StreamEvent{Kind: stream.EventError, Index: e.Index, Code: CodeAlreadyExecuted,
				Text: fmt.Sprintf("call %d was not executed again: an earlier stream with this idempotency key executed it", e.Index)})
		}
		var refused *IdempotencyError
		if errors.As(err, &refused) {
			ex, err = nil, nil
			out = append(out, StreamEvent{Kind: stream.EventError, Index: e.Index, Code: CodeAlreadyExecuted,
				Text: fmt.Sprintf("call %d was not executed: %v", e.Index, refused)})
		}
		if err != nil {
			var changed *FileChangedError
			var locked *workspace.LockTimeoutError
			if !errors.As(err, &changed) && !errors.As(err, &locked) {
				return nil, err
			}
			ex = nil
			out = append(out, StreamEvent{Kind: stream.EventError, Index: e.Index, Code: CodeExecutionFailed,
				Text: fmt.Sprintf("call %d was not executed: %v", e.Index, err)})
		}
		if ex != nil {
			s.g.textEditorMessages(req.ValidateRequest, res, ex)
		}
	}
	// A call the stream would execute is its execution's turn; one it only
	// validates may still be sent to ExecuteWrite or ExecuteEdit.
	v, err := s.g.count(s.ctx, req.ValidateRequest, res, executes && run != nil, ex != nil && ex.Applied)
	if err != nil {
		return nil, err
	}
	if ex != nil {
		ex.Verdict = v
		editFeedback(res, ex)
		reportSyntax(res, ex)
		s.g.observer.Execution(ex)
		if err := s.g.elide(ex); err != nil {
			return nil, err
		}
	} else if err := s.g.fit(v); err != nil {
		return nil, err
	}
	s.g.observer.StreamCall(s.req.Format, streamCallOutcome(v, truncated))
	return append(out, StreamEvent{Kind: stream.EventCallClosed, Index: e.Index, ID: e.ID, Verdict: v, Truncated: truncated, Execution: ex}), nil
}

// runner returns how a usable call is executed, nil to only validate it.
func (g *Guard) runner(res *repair.Result) func(context.Context, *workspace.Workspace, ExecuteRequest, *repair.Result, *Execution) error {
	if res.Tool == nil {
		return nil
	}
	// Only the server's own tools run: a request's definition under a
	// built-in's name is validated against its own schema, never executed.
	switch g.ActionOf(res.Tool) {
	case ActionWrite:
		return g.write
	case ActionEdit:
		return g.edit
	}
	return nil
}
