package protoapi

import (
	"fmt"
	"math"
	"unsafe"

	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/toolguard/toolguard/edit"
	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/repair"
)

// VerdictToProto converts a guard verdict to its API form; the server sends
// it and the CLI prints it. The server's codec writes the same answer from
// the verdict itself (service/codec_answer.go): a change here is one there.
func VerdictToProto(v *guard.Verdict, callID string) (*toolguardv1.Verdict, error) {
	// The verdict and its mistake state in one allocation.
	blk := new(struct {
		v toolguardv1.Verdict
		m toolguardv1.MistakeState
	})
	out := &blk.v
	out.Ok, out.ToolName, out.ArgumentsJson, out.Feedback = v.OK(), v.ToolName, bytesString(v.ArgumentsJSON), v.Feedback
	out.CallId, out.Form = callID, FormToProto(v.Form)
	out.Mistakes = fillMistakes(&blk.m, v.Mistakes)
	if v.Args != nil {
		st, err := newStruct(v.Args)
		if err != nil {
			return nil, fmt.Errorf("arguments to Struct: %w", err)
		}
		out.Arguments = st
	}
	// Each list's messages are allocated together: a verdict is converted
	// at every call.
	if len(v.Repairs) > 0 {
		rs := make([]toolguardv1.Repair, len(v.Repairs))
		out.Repairs = make([]*toolguardv1.Repair, len(v.Repairs))
		for i, r := range v.Repairs {
			rs[i].Code, rs[i].Param, rs[i].Detail = r.Code, r.Param, r.Detail
			out.Repairs[i] = &rs[i]
		}
	}
	if n := v.RepairsOmitted; n > 0 && len(out.Repairs) > 0 {
		// The API has no count of omitted repairs: the list says it itself.
		last := out.Repairs[len(out.Repairs)-1]
		last.Detail += fmt.Sprintf(" (and %d more repairs of the kinds listed, not listed)", n)
	}
	if len(v.Violations) > 0 {
		vs := make([]toolguardv1.Violation, len(v.Violations))
		out.Violations = make([]*toolguardv1.Violation, len(v.Violations))
		for i, x := range v.Violations {
			vs[i].Code, vs[i].Param, vs[i].Message = x.Code, x.Param, x.Message
			out.Violations[i] = &vs[i]
		}
	}
	out.ViolationsOmitted = uint32(min(uint64(v.ViolationsOmitted), math.MaxUint32))
	for _, e := range v.Elided {
		out.Elided = append(out.Elided, elisionToProto(&e))
	}
	return out, nil
}

// bytesString shares a verdict's arguments_json with the answer instead of
// copying it (the size of the arguments, at every call): the guard makes
// those bytes for the verdict and never writes them after.
func bytesString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

func elisionToProto(e *guard.Elision) *toolguardv1.Elision {
	if e == nil {
		return nil
	}
	return &toolguardv1.Elision{Field: e.Field, Size: uint64(e.Size), Sha256: e.SHA256}
}

// MistakesToProto converts a mistake counter to its API form.
func MistakesToProto(m guard.MistakeState) *toolguardv1.MistakeState {
	return fillMistakes(new(toolguardv1.MistakeState), m)
}

// fillMistakes sets out to m's API form and returns it.
func fillMistakes(out *toolguardv1.MistakeState, m guard.MistakeState) *toolguardv1.MistakeState {
	out.Consecutive, out.Limit, out.LimitReached, out.NotCounted = m.Consecutive, m.Limit, m.LimitReached, m.NotCounted
	return out
}

// FormToProto converts how a call's arguments arrived to its API form.
func FormToProto(f repair.Form) toolguardv1.ArgumentsForm {
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

// SessionToProto converts a session to its API form.
func SessionToProto(s guard.Session) *toolguardv1.Session {
	out := &toolguardv1.Session{
		SessionId: s.ID,
		Mistakes:  MistakesToProto(s.Mistakes),
		Exists:    s.State.Exists,
	}
	if s.State.Exists {
		out.LastSeen = timestamppb.New(s.State.LastSeen)
	}
	return out
}

// ListToolsResponse renders the registry's tools for the family of a model
// id, as ListTools answers.
func ListToolsResponse(reg *repair.Registry, modelID string) (*toolguardv1.ListToolsResponse, error) {
	family := repair.FamilyOf(modelID)
	tools := reg.Tools()
	out := &toolguardv1.ListToolsResponse{ModelFamily: family, Tools: make([]*toolguardv1.ToolSpec, 0, len(tools))}
	for _, t := range tools {
		spec, err := ToolSpecToProto(t, family)
		if err != nil {
			return nil, fmt.Errorf("render tool %q: %w", t.Name(), err)
		}
		out.Tools = append(out.Tools, spec)
	}
	return out, nil
}

// ToolSpecToProto renders a tool for a model family in its API form.
func ToolSpecToProto(t *repair.Tool, family string) (*toolguardv1.ToolSpec, error) {
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

// ExecutionToWriteResponse converts a write execution to its API form.
func ExecutionToWriteResponse(pv *toolguardv1.Verdict, ex *guard.Execution) *toolguardv1.ExecuteWriteResponse {
	out := &toolguardv1.ExecuteWriteResponse{Verdict: pv, Diff: ex.Diff, DiffElided: elisionToProto(ex.DiffElided), SyntaxChecks: syntaxChecksToProto(ex.Syntax)}
	if len(ex.Changes) > 0 {
		out.Change = fileChangeToProto(ex.Changes[0])
	}
	return out
}

// ReadToProto converts a read to its API form; the file fields stay empty
// when the verdict is not usable.
func ReadToProto(pv *toolguardv1.Verdict, r *guard.Read) *toolguardv1.ReadFileResponse {
	offset, column := r.Next()
	return &toolguardv1.ReadFileResponse{
		Verdict: pv, Path: r.Path, Content: r.Content, Sha256: r.SHA256, Size: uint64(max(r.Size, 0)),
		TotalLines: uint32(r.TotalLines), StartLine: uint32(max(r.StartLine, 0)), EndLine: uint32(max(r.EndLine, 0)), Truncated: r.Truncated,
		NextOffset: uint32(max(offset, 0)), NextColumn: uint32(max(column, 0)),
	}
}

// ExecutionToEditResponse converts an edit execution to its API form.
func ExecutionToEditResponse(pv *toolguardv1.Verdict, ex *guard.Execution) *toolguardv1.ExecuteEditResponse {
	out := &toolguardv1.ExecuteEditResponse{Verdict: pv, Diff: ex.Diff, DiffElided: elisionToProto(ex.DiffElided), Applied: ex.Applied,
		SyntaxChecks: syntaxChecksToProto(ex.Syntax)}
	for _, e := range ex.Edits {
		r := &toolguardv1.EditResult{
			Index: uint32(e.Index), Path: e.Path, Status: editStatusToProto(e.Status), Strategy: strategyToProto(e.Strategy),
			Similarity: e.Similarity, Line: uint32(max(e.Line, 0)), Column: uint32(max(e.Column, 0)), Hint: e.Hint,
			SyntaxErrors: syntaxFindingsToProto(ex.EditSyntax(e)),
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
		guard.ChangeUnchanged:        toolguardv1.FileChangeKind_FILE_CHANGE_KIND_UNCHANGED,
		guard.ChangeDirectoryCreated: toolguardv1.FileChangeKind_FILE_CHANGE_KIND_DIRECTORY_CREATED,
	}
	return &toolguardv1.FileChange{Path: c.Path, Kind: kinds[c.Kind], PreviousSha256: c.PreviousSHA256, Sha256: c.SHA256, Size: uint64(c.Size), MovedTo: c.MovedTo,
		Directory: c.Directory, Entries: uint32(min(max(c.Entries, 0), 1<<31))}
}

func editStatusToProto(s edit.Status) toolguardv1.EditStatus {
	if v, ok := toolguardv1.EditStatus_value["EDIT_STATUS_"+string(s)]; ok {
		return toolguardv1.EditStatus(v)
	}
	return toolguardv1.EditStatus_EDIT_STATUS_UNSPECIFIED
}

func strategyToProto(s edit.Strategy) toolguardv1.MatchStrategy {
	if v, ok := toolguardv1.MatchStrategy_value["MATCH_STRATEGY_"+string(s)]; ok {
		return toolguardv1.MatchStrategy(v)
	}
	return toolguardv1.MatchStrategy_MATCH_STRATEGY_UNSPECIFIED
}
