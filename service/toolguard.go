package service

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"go.uber.org/zap"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/workspace"
)

// toolGuardService implements toolguard.v1.ToolGuardService. Each handler is
// thin: check the request, call the guard, translate the result; every error
// leaves through toStatus.
type toolGuardService struct {
	toolguardv1.UnimplementedToolGuardServiceServer
	guard        *guard.Guard
	log          *zap.Logger
	streamLimits StreamLimits
	// maxJSONDepth bounds the JSON nesting of requests (requests.go);
	// streams bounds the open StreamToolCalls streams (limits.go).
	maxJSONDepth int
	streams      *streamSlots
	// idleTimeout ends streams that wait on their client (stream_idle.go).
	idleTimeout time.Duration
	// storeDown warns about calls that failed for the session store.
	storeDown *throttledWarning
	// listings caches ListTools responses by model family.
	listings sync.Map
}

// newToolGuardService builds the ToolGuardService implementation and returns
// it with the cleanup that releases what it holds. observe, when not nil,
// builds the observer of the guard's outcomes; streams are the stream slots
// (see accessControl).
func newToolGuardService(cfg Config, log *zap.Logger, observe func(*repair.Registry) (guard.Observer, error), streams *streamSlots) (toolguardv1.ToolGuardServiceServer, func() error, error) {
	g, cleanup, err := guard.New(cfg.Config, guard.Options{
		Observe:          observe,
		Uncounted:        uncountedWarning(log, cfg.AuthTokensFile != ""),
		MaxResponseBytes: cfg.MaxSendMsgBytes,
		Log:              log,
	})
	if err != nil {
		return nil, nil, err
	}
	limits := StreamLimits{MaxCallBytes: cfg.MaxCallBytes, MaxParamBytes: cfg.MaxParamBytes, MaxJSONDepth: cfg.MaxJSONDepth,
		Budget: &streamBudget{limit: int64(cfg.MaxStreamBufferBytes)}}
	return &toolGuardService{guard: g, log: log, streamLimits: limits,
		maxJSONDepth: cfg.MaxJSONDepth, streams: streams, idleTimeout: cfg.StreamIdleTimeout,
		storeDown: newThrottledWarning(log, "session store unreachable: call failed")}, cleanup, nil
}

func (s *toolGuardService) ValidateToolCall(ctx context.Context, req *toolguardv1.ValidateToolCallRequest) (*toolguardv1.ValidateToolCallResponse, error) {
	logSessionID(ctx, req.GetContext().GetSessionId())
	in, err := validateRequestFromProto(req, s.maxJSONDepth)
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	// Validating executes nothing, but a workspace it names must be granted.
	if in.SessionID, err = callerFromContext(ctx).scope(in.SessionID, req.GetContext().GetWorkspace(), false); err != nil {
		return nil, s.toStatus(ctx, err)
	}
	v, err := s.guard.Validate(ctx, in)
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	pv, err := VerdictToProto(v, req.GetCall().GetId())
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &toolguardv1.ValidateToolCallResponse{Verdict: pv}, nil
}

func (s *toolGuardService) ExecuteWrite(ctx context.Context, req *toolguardv1.ExecuteWriteRequest) (*toolguardv1.ExecuteWriteResponse, error) {
	logSessionID(ctx, req.GetContext().GetSessionId())
	in, err := executeRequestFromProto(req.GetContext(), req.GetCall(), req.GetTools(), req.GetExpectedSha256(), req.GetDryRun(), false, s.maxJSONDepth)
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	if in.SessionID, err = callerFromContext(ctx).scope(in.SessionID, in.Workspace, true); err != nil {
		return nil, s.toStatus(ctx, err)
	}
	ex, err := s.guard.ExecuteWrite(ctx, in)
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	pv, err := VerdictToProto(ex.Verdict, req.GetCall().GetId())
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return ExecutionToWriteResponse(pv, ex), nil
}

// ExecutionToWriteResponse converts a write execution to its API form; the
// CLI prints the same message.
func ExecutionToWriteResponse(pv *toolguardv1.Verdict, ex *guard.Execution) *toolguardv1.ExecuteWriteResponse {
	out := &toolguardv1.ExecuteWriteResponse{Verdict: pv, Diff: ex.Diff, DiffElided: elisionToProto(ex.DiffElided)}
	if len(ex.Changes) > 0 {
		out.Change = fileChangeToProto(ex.Changes[0])
	}
	return out
}

func (s *toolGuardService) ExecuteEdit(ctx context.Context, req *toolguardv1.ExecuteEditRequest) (*toolguardv1.ExecuteEditResponse, error) {
	logSessionID(ctx, req.GetContext().GetSessionId())
	in, err := executeRequestFromProto(req.GetContext(), req.GetCall(), req.GetTools(), req.GetExpectedSha256(), req.GetDryRun(), req.GetPartial(), s.maxJSONDepth)
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	if in.SessionID, err = callerFromContext(ctx).scope(in.SessionID, in.Workspace, true); err != nil {
		return nil, s.toStatus(ctx, err)
	}
	ex, err := s.guard.ExecuteEdit(ctx, in)
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	pv, err := VerdictToProto(ex.Verdict, req.GetCall().GetId())
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return ExecutionToEditResponse(pv, ex), nil
}

// ExecutionToEditResponse converts an edit execution to its API form; the
// CLI prints the same message.
func ExecutionToEditResponse(pv *toolguardv1.Verdict, ex *guard.Execution) *toolguardv1.ExecuteEditResponse {
	out := &toolguardv1.ExecuteEditResponse{Verdict: pv, Diff: ex.Diff, DiffElided: elisionToProto(ex.DiffElided), Applied: ex.Applied}
	for _, e := range ex.Edits {
		r := &toolguardv1.EditResult{
			Index: uint32(e.Index), Path: e.Path, Status: editStatusToProto(e.Status), Strategy: strategyToProto(e.Strategy),
			Similarity: e.Similarity, Line: uint32(max(e.Line, 0)), Column: uint32(max(e.Column, 0)), Hint: e.Hint,
		}
		for _, l := range e.Matches {
			r.MatchLines = append(r.MatchLines, uint32(max(l, 0)))
		}
		out.Edits = append(out.Edits, r)
	}
	for _, c := range ex.Changes {
		out.Changes = append(out.Changes, fileChangeToProto(c))
	}
	return out
}

func fileChangeToProto(c guard.FileChange) *toolguardv1.FileChange {
	kinds := map[guard.ChangeKind]toolguardv1.FileChangeKind{
		guard.ChangeCreated: toolguardv1.FileChangeKind_FILE_CHANGE_KIND_CREATED, guard.ChangeModified: toolguardv1.FileChangeKind_FILE_CHANGE_KIND_MODIFIED,
		guard.ChangeDeleted: toolguardv1.FileChangeKind_FILE_CHANGE_KIND_DELETED, guard.ChangeMoved: toolguardv1.FileChangeKind_FILE_CHANGE_KIND_MOVED,
		guard.ChangeUnchanged: toolguardv1.FileChangeKind_FILE_CHANGE_KIND_UNCHANGED,
	}
	return &toolguardv1.FileChange{Path: c.Path, Kind: kinds[c.Kind], PreviousSha256: c.PreviousSHA256, Sha256: c.SHA256, Size: uint64(c.Size), MovedTo: c.MovedTo}
}

func editStatusToProto(s workspace.Status) toolguardv1.EditStatus {
	if v, ok := toolguardv1.EditStatus_value["EDIT_STATUS_"+string(s)]; ok {
		return toolguardv1.EditStatus(v)
	}
	return toolguardv1.EditStatus_EDIT_STATUS_UNSPECIFIED
}

func strategyToProto(s workspace.Strategy) toolguardv1.MatchStrategy {
	if v, ok := toolguardv1.MatchStrategy_value["MATCH_STRATEGY_"+string(s)]; ok {
		return toolguardv1.MatchStrategy(v)
	}
	return toolguardv1.MatchStrategy_MATCH_STRATEGY_UNSPECIFIED
}

func (s *toolGuardService) ListTools(_ context.Context, req *toolguardv1.ListToolsRequest) (*toolguardv1.ListToolsResponse, error) {
	family := repair.FamilyOf(req.GetModelId())
	// The registry never changes, so each family's listing is rendered once.
	// Sharing one response between calls is safe: gRPC only reads it.
	if cached, ok := s.listings.Load(family); ok {
		return cached.(*toolguardv1.ListToolsResponse), nil
	}
	out, err := s.renderTools(family)
	if err != nil {
		return nil, s.toStatus(context.Background(), err)
	}
	s.listings.Store(family, out)
	return out, nil
}

// renderTools renders every tool of the registry for a model family.
func (s *toolGuardService) renderTools(family string) (*toolguardv1.ListToolsResponse, error) {
	tools := s.guard.Registry().Tools()
	out := &toolguardv1.ListToolsResponse{ModelFamily: family, Tools: make([]*toolguardv1.ToolSpec, 0, len(tools))}
	for _, t := range tools {
		spec, err := toolSpecToProto(t, family)
		if err != nil {
			return nil, fmt.Errorf("render tool %q: %w", t.Name(), err)
		}
		out.Tools = append(out.Tools, spec)
	}
	return out, nil
}

func (s *toolGuardService) GetSession(ctx context.Context, req *toolguardv1.GetSessionRequest) (*toolguardv1.GetSessionResponse, error) {
	logSessionID(ctx, req.GetSessionId())
	if err := checkSessionID(req.GetSessionId(), "session_id"); err != nil {
		return nil, s.toStatus(ctx, err)
	}
	// The caller's own session of that id (auth.go), answered under its id.
	sess, err := s.guard.Session(ctx, callerFromContext(ctx).sessionKey(req.GetSessionId()))
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	sess.ID = req.GetSessionId()
	return &toolguardv1.GetSessionResponse{Session: sessionToProto(sess)}, nil
}

func (s *toolGuardService) ResetSession(ctx context.Context, req *toolguardv1.ResetSessionRequest) (*toolguardv1.ResetSessionResponse, error) {
	logSessionID(ctx, req.GetSessionId())
	if err := checkSessionID(req.GetSessionId(), "session_id"); err != nil {
		return nil, s.toStatus(ctx, err)
	}
	sess, err := s.guard.ResetSession(ctx, callerFromContext(ctx).sessionKey(req.GetSessionId()))
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	sess.ID = req.GetSessionId()
	return &toolguardv1.ResetSessionResponse{Session: sessionToProto(sess)}, nil
}

// VerdictToProto converts a guard verdict to its API form. The CLI prints the
// same message, so both front ends show identical verdicts.
func VerdictToProto(v *guard.Verdict, callID string) (*toolguardv1.Verdict, error) {
	out := &toolguardv1.Verdict{
		Ok:            v.OK(),
		ToolName:      v.ToolName,
		ArgumentsJson: string(v.ArgumentsJSON),
		Feedback:      v.Feedback,
		Mistakes:      mistakesToProto(v.Mistakes),
		CallId:        callID,
		Form:          formToProto(v.Form),
	}
	if v.Args != nil {
		st, err := structpb.NewStruct(v.Args)
		if err != nil {
			return nil, fmt.Errorf("arguments to Struct: %w", err)
		}
		out.Arguments = st
	}
	for _, r := range v.Repairs {
		out.Repairs = append(out.Repairs, &toolguardv1.Repair{Code: r.Code, Param: r.Param, Detail: r.Detail})
	}
	if n := v.RepairsOmitted; n > 0 && len(out.Repairs) > 0 {
		// The API has no count of omitted repairs: the list says it itself.
		last := out.Repairs[len(out.Repairs)-1]
		last.Detail += fmt.Sprintf(" (and %d more repairs of the kinds listed, not listed)", n)
	}
	for _, x := range v.Violations {
		out.Violations = append(out.Violations, &toolguardv1.Violation{Code: x.Code, Param: x.Param, Message: x.Message})
	}
	out.ViolationsOmitted = uint32(min(uint64(v.ViolationsOmitted), math.MaxUint32))
	for _, e := range v.Elided {
		out.Elided = append(out.Elided, elisionToProto(&e))
	}
	return out, nil
}

func elisionToProto(e *guard.Elision) *toolguardv1.Elision {
	if e == nil {
		return nil
	}
	return &toolguardv1.Elision{Field: e.Field, Size: uint64(e.Size), Sha256: e.SHA256}
}

func mistakesToProto(m guard.MistakeState) *toolguardv1.MistakeState {
	return &toolguardv1.MistakeState{Consecutive: m.Consecutive, Limit: m.Limit, LimitReached: m.LimitReached, NotCounted: m.NotCounted}
}

func formToProto(f repair.Form) toolguardv1.ArgumentsForm {
	switch f {
	case repair.FormText:
		return toolguardv1.ArgumentsForm_ARGUMENTS_FORM_TEXT
	case repair.FormParams:
		return toolguardv1.ArgumentsForm_ARGUMENTS_FORM_PARAMS
	case repair.FormXML:
		return toolguardv1.ArgumentsForm_ARGUMENTS_FORM_XML
	default:
		return toolguardv1.ArgumentsForm_ARGUMENTS_FORM_UNSPECIFIED
	}
}

func sessionToProto(s guard.Session) *toolguardv1.Session {
	out := &toolguardv1.Session{
		SessionId: s.ID,
		Mistakes:  mistakesToProto(s.Mistakes),
		Exists:    s.State.Exists,
	}
	if s.State.Exists {
		out.LastSeen = timestamppb.New(s.State.LastSeen)
	}
	return out
}

func toolSpecToProto(t *repair.Tool, family string) (*toolguardv1.ToolSpec, error) {
	r := t.Render(family)
	params, err := structpb.NewStruct(r.Def.Parameters)
	if err != nil {
		return nil, err
	}
	openai, err := structpb.NewStruct(r.OpenAI)
	if err != nil {
		return nil, err
	}
	anthropic, err := structpb.NewStruct(r.Anthropic)
	if err != nil {
		return nil, err
	}
	def := &toolguardv1.ToolDefinition{
		Name:          r.Def.Name,
		Description:   r.Def.Description,
		Parameters:    params,
		Aliases:       r.Def.Aliases,
		ContentParams: r.Def.ContentParams,
	}
	for _, pa := range t.ParamAliases() {
		def.ParamAliases = append(def.ParamAliases, &toolguardv1.ParamAliases{Param: pa.Param, Aliases: pa.Aliases, AllowEmpty: pa.AllowEmpty})
	}
	return &toolguardv1.ToolSpec{
		Definition:    def,
		OpenaiTool:    openai,
		AnthropicTool: anthropic,
		XmlUsage:      r.XMLUsage,
		Builtin:       t.Builtin(),
	}, nil
}
