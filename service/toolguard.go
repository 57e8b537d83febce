package service

import (
	"context"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/internal/budget"
	"github.com/toolguard/toolguard/internal/logthrottle"
	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/service/protoapi"
	"github.com/toolguard/toolguard/session"
)

// toolGuardService implements toolguard.v1.ToolGuardService: check the
// request, call the guard, convert the result; every error leaves through
// toStatus.
type toolGuardService struct {
	toolguardv1.UnimplementedToolGuardServiceServer
	guard        *guard.Guard
	log          *zap.Logger
	streamLimits protoapi.StreamLimits
	maxJSONDepth int
	streams      *streamSlots
	rates        *rateLimiter
	idleTimeout  time.Duration
	idleClock    idleClock
	storeDown    *logthrottle.Warning
	listings     sync.Map
}

// newToolGuardService builds the service and returns it with its cleanup.
func newToolGuardService(cfg Config, sessions session.Store, log *zap.Logger, observe func(*repair.Registry) (guard.Observer, error), streams *streamSlots, rates *rateLimiter) (toolguardv1.ToolGuardServiceServer, func() error, error) {
	g, cleanup, err := guard.New(cfg.Config, guard.Options{
		Observe:          observe,
		Uncounted:        uncountedWarning(log, cfg.AuthTokensFile != ""),
		MaxResponseBytes: cfg.MaxSendMsgBytes,
		MaxVerdictBytes:  guard.MaxVerdictBytes,
		Log:              log,
		Sessions:         sessions,
	})
	if err != nil {
		return nil, nil, err
	}
	limits := protoapi.StreamLimits{MaxCallBytes: cfg.MaxCallBytes, MaxParamBytes: cfg.MaxParamBytes, MaxJSONDepth: cfg.MaxJSONDepth,
		// The bytes open streams hold of their calls, all streams together
		// (MaxStreamBufferBytes): otherwise each could hold MaxCallBytes
		// of each of its calls.
		Budget: budget.New(int64(cfg.MaxStreamBufferBytes))}
	return &toolGuardService{guard: g, log: log, streamLimits: limits,
		maxJSONDepth: cfg.MaxJSONDepth, streams: streams, rates: rates, idleTimeout: cfg.StreamIdleTimeout, idleClock: cfg.idleClock,
		storeDown: logthrottle.New(log, "session store unreachable: call failed")}, cleanup, nil
}

func (s *toolGuardService) ValidateToolCall(ctx context.Context, req *toolguardv1.ValidateToolCallRequest) (*toolguardv1.ValidateToolCallResponse, error) {
	v, err := s.validate(ctx, req)
	if err != nil {
		return nil, err
	}
	return s.verdictResponse(ctx, v, req)
}

// validateAnswer is ValidateToolCall for the server's own handler
// (validateHandler): the answer as the codec writes it (codec_answer.go),
// or converted as ValidateToolCall's when the codec does not.
func (s *toolGuardService) validateAnswer(ctx context.Context, req *toolguardv1.ValidateToolCallRequest) (any, error) {
	v, err := s.validate(ctx, req)
	if err != nil {
		return nil, err
	}
	if a, ok := newVerdictAnswer(v, req.GetCall().GetId()); ok {
		return a, nil
	}
	return s.verdictResponse(ctx, v, req)
}

// validate checks, scopes and validates a call, and logs its verdict.
func (s *toolGuardService) validate(ctx context.Context, req *toolguardv1.ValidateToolCallRequest) (*guard.Verdict, error) {
	logSessionID(ctx, req.GetContext().GetSessionId())
	in, err := protoapi.ValidateRequest(req, s.maxJSONDepth)
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
	s.logVerdict(ctx, v)
	return v, nil
}

func (s *toolGuardService) verdictResponse(ctx context.Context, v *guard.Verdict, req *toolguardv1.ValidateToolCallRequest) (*toolguardv1.ValidateToolCallResponse, error) {
	pv, err := protoapi.VerdictToProto(v, req.GetCall().GetId())
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &toolguardv1.ValidateToolCallResponse{Verdict: pv}, nil
}

func (s *toolGuardService) ExecuteWrite(ctx context.Context, req *toolguardv1.ExecuteWriteRequest) (*toolguardv1.ExecuteWriteResponse, error) {
	return once(s, ctx, req, func() *toolguardv1.ExecuteWriteResponse { return new(toolguardv1.ExecuteWriteResponse) },
		func(ctx context.Context) (*toolguardv1.ExecuteWriteResponse, error) { return s.executeWrite(ctx, req) })
}

func (s *toolGuardService) executeWrite(ctx context.Context, req *toolguardv1.ExecuteWriteRequest) (*toolguardv1.ExecuteWriteResponse, error) {
	pv, ex, err := s.execute(ctx, executeCall{req.GetContext(), req.GetCall(), req.GetTools(), req.GetExpectedSha256(), req.GetDryRun(), false}, s.guard.ExecuteWrite)
	if err != nil {
		return nil, err
	}
	return protoapi.ExecutionToWriteResponse(pv, ex), nil
}

func (s *toolGuardService) ExecuteEdit(ctx context.Context, req *toolguardv1.ExecuteEditRequest) (*toolguardv1.ExecuteEditResponse, error) {
	return once(s, ctx, req, func() *toolguardv1.ExecuteEditResponse { return new(toolguardv1.ExecuteEditResponse) },
		func(ctx context.Context) (*toolguardv1.ExecuteEditResponse, error) { return s.executeEdit(ctx, req) })
}

func (s *toolGuardService) executeEdit(ctx context.Context, req *toolguardv1.ExecuteEditRequest) (*toolguardv1.ExecuteEditResponse, error) {
	pv, ex, err := s.execute(ctx, executeCall{req.GetContext(), req.GetCall(), req.GetTools(), req.GetExpectedSha256(), req.GetDryRun(), req.GetPartial()}, s.guard.ExecuteEdit)
	if err != nil {
		return nil, err
	}
	return protoapi.ExecutionToEditResponse(pv, ex), nil
}

// executeCall is what ExecuteWrite and ExecuteEdit requests share.
type executeCall struct {
	rc             *toolguardv1.RequestContext
	call           *toolguardv1.ToolCall
	tools          []*toolguardv1.ToolDefinition
	expectedSHA256 string
	dryRun         bool
	partial        bool
}

// execute checks an execute request, scopes its session to the caller, runs
// it with the guard's use case and gives the verdict; errors are statuses.
func (s *toolGuardService) execute(ctx context.Context, c executeCall,
	run func(context.Context, guard.ExecuteRequest) (*guard.Execution, error)) (*toolguardv1.Verdict, *guard.Execution, error) {
	logSessionID(ctx, c.rc.GetSessionId())
	in, err := protoapi.ExecuteRequest(c.rc, c.call, c.tools, c.expectedSHA256, c.dryRun, c.partial, s.maxJSONDepth)
	if err != nil {
		return nil, nil, s.toStatus(ctx, err)
	}
	if in.SessionID, err = callerFromContext(ctx).scope(in.SessionID, in.Workspace, true); err != nil {
		return nil, nil, s.toStatus(ctx, err)
	}
	ex, err := run(ctx, in)
	if err != nil {
		return nil, nil, s.toStatus(ctx, err)
	}
	s.logVerdict(ctx, ex.Verdict)
	pv, err := protoapi.VerdictToProto(ex.Verdict, c.call.GetId())
	if err != nil {
		return nil, nil, s.toStatus(ctx, err)
	}
	return pv, ex, nil
}

func (s *toolGuardService) ReadFile(ctx context.Context, req *toolguardv1.ReadFileRequest) (*toolguardv1.ReadFileResponse, error) {
	logSessionID(ctx, req.GetContext().GetSessionId())
	in, err := protoapi.ReadRequest(req)
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	// A read touches the files of a workspace, the default one when none is
	// named: granted as an execution is.
	if in.SessionID, err = callerFromContext(ctx).scope(in.SessionID, in.Workspace, true); err != nil {
		return nil, s.toStatus(ctx, err)
	}
	r, err := s.guard.ReadFile(ctx, in)
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	s.logVerdict(ctx, r.Verdict)
	pv, err := protoapi.VerdictToProto(r.Verdict, "")
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return protoapi.ReadToProto(pv, r), nil
}

// logVerdict puts the call's tool (a bounded label, never the name as the
// model wrote it) and its codes, each once, on the call's log line.
func (s *toolGuardService) logVerdict(ctx context.Context, v *guard.Verdict) {
	annotateVerdict(ctx, s.guard.ToolLabel(v.Result), v)
}

// appendVerdictFields appends a verdict's log fields: its tool's label,
// whether it is usable, and its repair and violation codes, each once.
func appendVerdictFields(fields []any, tool string, v *guard.Verdict) []any {
	fields = append(fields, "tool", tool, "usable", v.OK())
	var repairs []string
	for _, r := range v.Repairs {
		if !slices.Contains(repairs, r.Code) {
			repairs = append(repairs, r.Code)
		}
	}
	if len(repairs) > 0 {
		fields = append(fields, "repairs", repairs)
	}
	if codes := v.ViolationCodes(); len(codes) > 0 {
		fields = append(fields, "violations", codes)
	}
	return fields
}

func (s *toolGuardService) ListTools(_ context.Context, req *toolguardv1.ListToolsRequest) (*toolguardv1.ListToolsResponse, error) {
	family := repair.FamilyOf(req.GetModelId())
	// The registry never changes, so each family's listing is rendered once;
	// gRPC only reads the shared response.
	if cached, ok := s.listings.Load(family); ok {
		return cached.(*toolguardv1.ListToolsResponse), nil
	}
	out, err := protoapi.ListToolsResponse(s.guard.Registry(), req.GetModelId())
	if err != nil {
		return nil, s.toStatus(context.Background(), err)
	}
	s.listings.Store(family, out)
	return out, nil
}

func (s *toolGuardService) GetSession(ctx context.Context, req *toolguardv1.GetSessionRequest) (*toolguardv1.GetSessionResponse, error) {
	logSessionID(ctx, req.GetSessionId())
	if err := protoapi.CheckSessionID(req.GetSessionId(), "session_id"); err != nil {
		return nil, s.toStatus(ctx, err)
	}
	// The caller's own session of that id (auth.go).
	sess, err := s.guard.Session(ctx, callerFromContext(ctx).sessionKey(req.GetSessionId()))
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	sess.ID = req.GetSessionId()
	return &toolguardv1.GetSessionResponse{Session: protoapi.SessionToProto(sess)}, nil
}

func (s *toolGuardService) ResetSession(ctx context.Context, req *toolguardv1.ResetSessionRequest) (*toolguardv1.ResetSessionResponse, error) {
	logSessionID(ctx, req.GetSessionId())
	if err := protoapi.CheckSessionID(req.GetSessionId(), "session_id"); err != nil {
		return nil, s.toStatus(ctx, err)
	}
	sess, err := s.guard.ResetSession(ctx, callerFromContext(ctx).sessionKey(req.GetSessionId()))
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	sess.ID = req.GetSessionId()
	return &toolguardv1.ResetSessionResponse{Session: protoapi.SessionToProto(sess)}, nil
}
