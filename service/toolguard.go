package service

import (
	"context"
	"fmt"
	"sync"

	"go.uber.org/zap"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/session"
)

// toolGuardService implements toolguard.v1.ToolGuardService. Each handler is
// thin: check the request, call the guard, translate the result; every error
// leaves through toStatus.
type toolGuardService struct {
	toolguardv1.UnimplementedToolGuardServiceServer
	guard *guard.Guard
	log   *zap.Logger
	// listings caches ListTools responses by model family.
	listings sync.Map
}

// NewGuard builds the core the service runs on from the configuration: the
// tool registry (built-ins plus cfg.ToolsFile) and the in-memory session
// store. The returned cleanup releases the store.
func NewGuard(cfg Config) (*guard.Guard, func() error, error) {
	var files []repair.ToolsFile
	if cfg.ToolsFile != "" {
		f, err := repair.LoadToolsFile(cfg.ToolsFile)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, f)
	}
	reg, err := repair.NewRegistry(files...)
	if err != nil {
		return nil, nil, fmt.Errorf("tool registry: %w", err)
	}
	store := session.NewMemory(session.MemoryOptions{TTL: cfg.SessionTTL, MaxSessions: cfg.MaxSessions})
	g, err := guard.New(guard.Config{Registry: reg, Sessions: store, MistakeLimit: cfg.MistakeLimit})
	if err != nil {
		_ = store.Close()
		return nil, nil, err
	}
	return g, store.Close, nil
}

// newToolGuardService builds the ToolGuardService implementation and returns
// it with the cleanup that releases what it holds.
func newToolGuardService(cfg Config, log *zap.Logger) (toolguardv1.ToolGuardServiceServer, func() error, error) {
	g, cleanup, err := NewGuard(cfg)
	if err != nil {
		return nil, nil, err
	}
	return &toolGuardService{guard: g, log: log}, cleanup, nil
}

func (s *toolGuardService) ValidateToolCall(ctx context.Context, req *toolguardv1.ValidateToolCallRequest) (*toolguardv1.ValidateToolCallResponse, error) {
	in, err := validateRequestFromProto(req)
	if err != nil {
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
	if err := checkSessionID(req.GetSessionId(), "session_id"); err != nil {
		return nil, s.toStatus(ctx, err)
	}
	sess, err := s.guard.Session(ctx, req.GetSessionId())
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &toolguardv1.GetSessionResponse{Session: sessionToProto(sess)}, nil
}

func (s *toolGuardService) ResetSession(ctx context.Context, req *toolguardv1.ResetSessionRequest) (*toolguardv1.ResetSessionResponse, error) {
	if err := checkSessionID(req.GetSessionId(), "session_id"); err != nil {
		return nil, s.toStatus(ctx, err)
	}
	sess, err := s.guard.ResetSession(ctx, req.GetSessionId())
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
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
	for _, x := range v.Violations {
		out.Violations = append(out.Violations, &toolguardv1.Violation{Code: x.Code, Param: x.Param, Message: x.Message})
	}
	return out, nil
}

func mistakesToProto(m guard.MistakeState) *toolguardv1.MistakeState {
	return &toolguardv1.MistakeState{Consecutive: m.Consecutive, Limit: m.Limit, LimitReached: m.LimitReached}
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
