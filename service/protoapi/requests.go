// Package protoapi is where the toolguard.v1 API meets the guard, for every
// front end that speaks it (the gRPC server, the CLI): requests checked and
// converted, verdicts and events converted back, the stream frame loop, and
// messages printed as JSON.
package protoapi

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/types/known/structpb"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/repair/stream"
)

// Every rule a request must meet before it reaches the core is written out
// here (protovalidate is not available to this build); each failure is a
// FieldError, INVALID_ARGUMENT with a BadRequest detail.

// Limits on request fields; the message size bounds everything else.
const (
	// MaxSessionIDBytes bounds session ids, as in every front end.
	MaxSessionIDBytes = guard.MaxSessionIDBytes
	maxToolNameBytes  = 256
	maxModelIDBytes   = 256
	maxToolsPerCall   = 128
	maxWorkspaceBytes = 256
)

// FieldError is a caller's mistake in one request field.
type FieldError struct {
	// Field is the field's path in proto names, or "" for no one field.
	Field       string
	Reason      string
	Description string
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Description
	}
	return e.Field + ": " + e.Description
}

// CheckSessionID refuses a session id that is empty, too long or not
// UTF-8, naming field.
func CheckSessionID(id, field string) error {
	switch {
	case id == "":
		return &FieldError{Field: field, Reason: "SESSION_ID_REQUIRED", Description: "a session id is required"}
	case len(id) > MaxSessionIDBytes:
		return &FieldError{Field: field, Reason: "SESSION_ID_TOO_LONG", Description: fmt.Sprintf("session id is %d bytes; at most %d", len(id), MaxSessionIDBytes)}
	case !utf8.ValidString(id):
		return &FieldError{Field: field, Reason: "SESSION_ID_INVALID", Description: "session id must be valid UTF-8"}
	}
	return nil
}

// ValidateRequest checks a ValidateToolCallRequest and converts it to the
// core's request.
func ValidateRequest(req *toolguardv1.ValidateToolCallRequest, maxJSONDepth int) (guard.ValidateRequest, error) {
	ctx := req.GetContext()
	if err := CheckSessionID(ctx.GetSessionId(), "context.session_id"); err != nil {
		return guard.ValidateRequest{}, err
	}
	if len(ctx.GetModelId()) > maxModelIDBytes {
		return guard.ValidateRequest{}, &FieldError{Field: "context.model_id", Reason: "MODEL_ID_TOO_LONG", Description: fmt.Sprintf("at most %d bytes", maxModelIDBytes)}
	}
	call, err := callFromProto(req.GetCall(), "call", maxJSONDepth)
	if err != nil {
		return guard.ValidateRequest{}, err
	}
	tools, err := toolDefsFromProto(req.GetTools(), "tools", maxJSONDepth)
	if err != nil {
		return guard.ValidateRequest{}, err
	}
	return guard.ValidateRequest{
		SessionID:    ctx.GetSessionId(),
		ModelID:      ctx.GetModelId(),
		MistakeLimit: ctx.GetMistakeLimit(),
		Call:         call,
		CallID:       req.GetCall().GetId(),
		Tools:        tools,
	}, nil
}

// ExecuteRequest checks the fields ExecuteWrite and ExecuteEdit share and
// converts them to the core's request.
func ExecuteRequest(rc *toolguardv1.RequestContext, call *toolguardv1.ToolCall, tools []*toolguardv1.ToolDefinition, sha string, dryRun, partial bool, maxJSONDepth int) (guard.ExecuteRequest, error) {
	v, err := ValidateRequest(&toolguardv1.ValidateToolCallRequest{Context: rc, Call: call, Tools: tools}, maxJSONDepth)
	if err != nil {
		return guard.ExecuteRequest{}, err
	}
	if len(rc.GetWorkspace()) > maxWorkspaceBytes {
		return guard.ExecuteRequest{}, &FieldError{Field: "context.workspace", Reason: "WORKSPACE_NAME_TOO_LONG", Description: fmt.Sprintf("at most %d bytes", maxWorkspaceBytes)}
	}
	if sha != "" && !isHexSHA256(sha) {
		return guard.ExecuteRequest{}, &FieldError{Field: "expected_sha256", Reason: "INVALID_SHA256", Description: "expected_sha256 must be 64 hexadecimal digits"}
	}
	return guard.ExecuteRequest{ValidateRequest: v, Workspace: rc.GetWorkspace(), ExpectedSHA256: sha, DryRun: dryRun, Partial: partial}, nil
}

// ReadRequest checks a ReadFileRequest and converts it to the core's
// request. The path is the model's: an empty or refused one is a verdict.
func ReadRequest(req *toolguardv1.ReadFileRequest) (guard.ReadRequest, error) {
	rc, err := requestContext(req.GetContext())
	if err != nil {
		return guard.ReadRequest{}, err
	}
	return guard.ReadRequest{
		RequestContext: rc, Path: req.GetPath(), Offset: int(req.GetOffset()), Limit: int(req.GetLimit()), Column: int(req.GetColumn()),
		LineNumbers: req.GetLineNumbers(), Head: int(req.GetHead()), Tail: int(req.GetTail()),
	}, nil
}

// requestContext checks the context of a request in fields (a read, a
// look) and converts it.
func requestContext(rc *toolguardv1.RequestContext) (guard.RequestContext, error) {
	if err := CheckSessionID(rc.GetSessionId(), "context.session_id"); err != nil {
		return guard.RequestContext{}, err
	}
	if len(rc.GetModelId()) > maxModelIDBytes {
		return guard.RequestContext{}, &FieldError{Field: "context.model_id", Reason: "MODEL_ID_TOO_LONG", Description: fmt.Sprintf("at most %d bytes", maxModelIDBytes)}
	}
	if len(rc.GetWorkspace()) > maxWorkspaceBytes {
		return guard.RequestContext{}, &FieldError{Field: "context.workspace", Reason: "WORKSPACE_NAME_TOO_LONG", Description: fmt.Sprintf("at most %d bytes", maxWorkspaceBytes)}
	}
	return guard.RequestContext{SessionID: rc.GetSessionId(), ModelID: rc.GetModelId(), MistakeLimit: rc.GetMistakeLimit(), Workspace: rc.GetWorkspace()}, nil
}

func isHexSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// callFromProto converts a ToolCall. No arguments is an empty text; no name
// is refused unless an XML block names the tool.
func callFromProto(c *toolguardv1.ToolCall, field string, maxJSONDepth int) (repair.Call, error) {
	if c == nil {
		return repair.Call{}, &FieldError{Field: field, Reason: "CALL_REQUIRED", Description: "the tool call is required"}
	}
	if len(c.GetName()) > maxToolNameBytes {
		return repair.Call{}, &FieldError{Field: field + ".name", Reason: "TOOL_NAME_TOO_LONG", Description: fmt.Sprintf("at most %d bytes", maxToolNameBytes)}
	}
	call := repair.Call{Name: c.GetName()}
	switch a := c.GetArguments().(type) {
	case *toolguardv1.ToolCall_ArgumentsText:
		if jsonDeeper(a.ArgumentsText, maxJSONDepth) {
			return repair.Call{}, TooDeep(field+".arguments_text", "the arguments", maxJSONDepth)
		}
		call.Form, call.Text = repair.FormText, a.ArgumentsText
	case *toolguardv1.ToolCall_Params:
		call.Form, call.Params = repair.FormParams, a.Params.GetValues()
	case *toolguardv1.ToolCall_XmlBlock:
		call.Form, call.Text = repair.FormXML, a.XmlBlock
	default:
		call.Form = repair.FormText // no arguments at all: same as empty text
	}
	if call.Name == "" && call.Form != repair.FormXML {
		return repair.Call{}, &FieldError{Field: field + ".name", Reason: "TOOL_NAME_REQUIRED", Description: "the tool name is required unless the arguments are a whole XML block"}
	}
	return call, nil
}

func toolDefsFromProto(defs []*toolguardv1.ToolDefinition, field string, maxJSONDepth int) ([]repair.ToolDef, error) {
	if len(defs) > maxToolsPerCall {
		return nil, &FieldError{Field: field, Reason: "TOO_MANY_TOOLS", Description: fmt.Sprintf("%d tool definitions; at most %d", len(defs), maxToolsPerCall)}
	}
	out := make([]repair.ToolDef, len(defs))
	for i, d := range defs {
		f := fmt.Sprintf("%s[%d]", field, i)
		if d.GetName() == "" {
			return nil, &FieldError{Field: f + ".name", Reason: "TOOL_NAME_REQUIRED", Description: "a tool definition needs a name"}
		}
		if d.GetParameters() == nil {
			return nil, &FieldError{Field: f + ".parameters", Reason: "TOOL_SCHEMA_REQUIRED", Description: "a tool definition needs the JSON Schema of its parameters"}
		}
		if StructDeeper(d.GetParameters(), maxJSONDepth) {
			return nil, TooDeep(f+".parameters", "the schema", maxJSONDepth)
		}
		def := repair.ToolDef{
			Name:          d.GetName(),
			Description:   d.GetDescription(),
			Aliases:       d.GetAliases(),
			Parameters:    d.GetParameters().AsMap(),
			ContentParams: d.GetContentParams(),
		}
		for _, pa := range d.GetParamAliases() {
			def.ParamAliases = append(def.ParamAliases, repair.ParamAliases{Param: pa.GetParam(), Aliases: pa.GetAliases(), AllowEmpty: pa.GetAllowEmpty()})
		}
		out[i] = def
	}
	return out, nil
}

// streamFormats maps the API's stream formats to the parser's, by name:
// STREAM_FORMAT_HERMES is the parser's hermes (TestStreamFormatsMatch
// checks that each side has the other).
var streamFormats = func() map[toolguardv1.StreamFormat]stream.Format {
	out := map[toolguardv1.StreamFormat]stream.Format{}
	for _, f := range stream.Formats() {
		if v, ok := toolguardv1.StreamFormat_value[StreamFormatEnumName(f)]; ok {
			out[toolguardv1.StreamFormat(v)] = f
		}
	}
	return out
}()

// StreamFormatEnumName is the API's name of a parser's format.
func StreamFormatEnumName(f stream.Format) string {
	return "STREAM_FORMAT_" + strings.ToUpper(f.String())
}

// streamRequestFromProto checks a start frame and converts it. The frame's
// limits may lower the server's, never raise them.
func streamRequestFromProto(start *toolguardv1.StreamStart, limits StreamLimits, known func(string) bool) (guard.StreamRequest, error) {
	if start == nil {
		return guard.StreamRequest{}, &FieldError{Field: "start", Reason: "START_FRAME_REQUIRED", Description: "the first frame of a stream must be a start frame"}
	}
	rc := start.GetContext()
	if err := CheckSessionID(rc.GetSessionId(), "start.context.session_id"); err != nil {
		return guard.StreamRequest{}, err
	}
	if len(rc.GetModelId()) > maxModelIDBytes {
		return guard.StreamRequest{}, &FieldError{Field: "start.context.model_id", Reason: "MODEL_ID_TOO_LONG", Description: fmt.Sprintf("at most %d bytes", maxModelIDBytes)}
	}
	if len(rc.GetWorkspace()) > maxWorkspaceBytes {
		return guard.StreamRequest{}, &FieldError{Field: "start.context.workspace", Reason: "WORKSPACE_NAME_TOO_LONG", Description: fmt.Sprintf("at most %d bytes", maxWorkspaceBytes)}
	}
	format, ok := streamFormats[start.GetFormat()]
	if !ok {
		return guard.StreamRequest{}, &FieldError{Field: "start.format", Reason: "STREAM_FORMAT_REQUIRED",
			Description: "set the format the model writes tool calls in: XML_TAGS, OPENAI, ANTHROPIC, HERMES, QWEN_XML, MINIMAX, " +
				"GLM45, HARMONY, DEEPSEEK_V3, DEEPSEEK_V31, KIMI_K2, MISTRAL, PYTHONIC, LLAMA3_JSON, CLAUDE_XML or AUTO"}
	}
	tools, err := toolDefsFromProto(start.GetTools(), "start.tools", limits.MaxJSONDepth)
	if err != nil {
		return guard.StreamRequest{}, err
	}
	names := start.GetToolNames()
	if len(names) > maxToolsPerCall {
		return guard.StreamRequest{}, &FieldError{Field: "start.tool_names", Reason: "TOO_MANY_TOOLS", Description: fmt.Sprintf("%d tool names; at most %d", len(names), maxToolsPerCall)}
	}
	for i, name := range names {
		if !known(name) {
			return guard.StreamRequest{}, &FieldError{Field: fmt.Sprintf("start.tool_names[%d]", i), Reason: "UNKNOWN_TOOL_NAME",
				Description: fmt.Sprintf("the server has no tool %q; send its definition in tools instead", name)}
		}
	}
	opts := start.GetOptions()
	return guard.StreamRequest{
		SessionID:         rc.GetSessionId(),
		ModelID:           rc.GetModelId(),
		Workspace:         rc.GetWorkspace(),
		MistakeLimit:      rc.GetMistakeLimit(),
		Format:            format,
		Tools:             tools,
		ToolNames:         names,
		ExecuteOnComplete: opts.GetExecuteOnComplete(),
		DryRun:            opts.GetDryRun(),
		Partial:           opts.GetPartial(),
		IdempotencyKey:    opts.GetIdempotencyKey(),
		MaxCallBytes:      lower(limits.MaxCallBytes, opts.GetMaxCallBytes()),
		MaxParamBytes:     lower(limits.MaxParamBytes, opts.GetMaxParamBytes()),
		MaxJSONDepth:      limits.MaxJSONDepth,
	}, nil
}

// lower applies a requested limit, which may only lower the server's.
func lower(server int, requested uint64) int {
	if requested > 0 && requested < uint64(server) {
		return int(requested)
	}
	return server
}

// toolDeltasFromProto checks a delta frame's fragments against the format.
func toolDeltasFromProto(ds []*toolguardv1.ToolCallDelta, format stream.Format) ([]stream.ToolDelta, error) {
	if len(ds) > 0 && !format.Structured() {
		return nil, &FieldError{Field: "delta.tool_calls", Reason: "TOOL_CALLS_NOT_IN_FORMAT",
			Description: fmt.Sprintf("the %s format carries tool calls in delta.text; tool_calls are for OPENAI and ANTHROPIC", format)}
	}
	out := make([]stream.ToolDelta, len(ds))
	for i, d := range ds {
		if len(d.GetName()) > maxToolNameBytes {
			return nil, &FieldError{Field: fmt.Sprintf("delta.tool_calls[%d].name", i), Reason: "TOOL_NAME_TOO_LONG", Description: fmt.Sprintf("at most %d bytes", maxToolNameBytes)}
		}
		out[i] = stream.ToolDelta{Index: int(d.GetIndex()), ID: d.GetId(), Name: d.GetName(), Arguments: d.GetArguments(), Done: d.GetDone()}
	}
	return out, nil
}

// Deep nesting costs the parsers stack and time out of proportion to its
// size, so requests are held to MaxJSONDepth before anything parses them.

// TooDeep refuses JSON nested more than limit levels deep in field.
func TooDeep(field, what string, limit int) *FieldError {
	return &FieldError{Field: field, Reason: "JSON_TOO_DEEP",
		Description: fmt.Sprintf("objects and arrays in %s nest more than %d levels deep", what, limit)}
}

// jsonDeeper is a cheap pre-scan of brackets outside strings, not a parser:
// a model's text may be broken JSON, so a closing bracket never takes the
// depth below zero. A limit <= 0 means no bound.
func jsonDeeper(text string, limit int) bool {
	if limit <= 0 {
		return false
	}
	// Depth never passes the count of opening brackets: the usual call has
	// a handful, counted at memory speed.
	if strings.Count(text, "{")+strings.Count(text, "[") <= limit {
		return false
	}
	depth, inString, escaped := 0, false, false
	for i := 0; i < len(text); i++ {
		c := text[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			if depth++; depth > limit {
				return true
			}
		case '}', ']':
			depth = max(depth-1, 0)
		}
	}
	return false
}

// StructDeeper reports whether s, itself one level, nests objects and lists
// more than limit deep; 0 or less means no bound.
func StructDeeper(s *structpb.Struct, limit int) bool {
	return limit > 0 && fieldsDeeper(s.GetFields(), 1, limit)
}

func fieldsDeeper(fields map[string]*structpb.Value, depth, limit int) bool {
	if depth > limit {
		return true
	}
	for _, v := range fields {
		if valueDeeper(v, depth, limit) {
			return true
		}
	}
	return false
}

func valueDeeper(v *structpb.Value, depth, limit int) bool {
	switch k := v.GetKind().(type) {
	case *structpb.Value_StructValue:
		return fieldsDeeper(k.StructValue.GetFields(), depth+1, limit)
	case *structpb.Value_ListValue:
		if depth+1 > limit {
			return true
		}
		for _, e := range k.ListValue.GetValues() {
			if valueDeeper(e, depth+1, limit) {
				return true
			}
		}
	}
	return false
}
