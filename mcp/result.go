package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolguard/toolguard/edit"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/repair"
)

// Verdict is a call's structuredContent: the verdict as the gRPC API gives
// it (field names as in toolguard.v1), and what the call did.
type Verdict struct {
	OK         bool               `json:"ok"`
	ToolName   string             `json:"tool_name"`
	Repairs    []repair.Repair    `json:"repairs,omitempty"`
	Violations []repair.Violation `json:"violations,omitempty"`
	Mistakes   Mistakes           `json:"mistakes"`
	// Arguments are the normalised arguments of a call only validated.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Applied   bool            `json:"applied,omitempty"`
	Changes   []Change        `json:"changes,omitempty"`
	Edits     []Edit          `json:"edits,omitempty"`
	Diff      string          `json:"diff,omitempty"`
	// Read describes the text a read_file call returned.
	Read *guard.FileText `json:"read,omitempty"`
	// Result is what a look tool found (a listing, matches, ...).
	Result guard.LookResult `json:"result,omitempty"`
	// SyntaxChecks are the syntax checks of the files a write or edit
	// changed (docs/syntax-check.md).
	SyntaxChecks []SyntaxCheck `json:"syntax_checks,omitempty"`
}

// Mistakes is the session's consecutive-mistake state.
type Mistakes struct {
	Consecutive  uint32 `json:"consecutive"`
	Limit        uint32 `json:"limit"`
	LimitReached bool   `json:"limit_reached,omitempty"`
	NotCounted   bool   `json:"not_counted,omitempty"`
}

// Change is one file's change.
type Change struct {
	Path           string `json:"path"`
	Kind           string `json:"kind"`
	PreviousSHA256 string `json:"previous_sha256,omitempty"`
	SHA256         string `json:"sha256,omitempty"`
	Size           int    `json:"size"`
	MovedTo        string `json:"moved_to,omitempty"`
}

// Edit is one edit's outcome.
type Edit struct {
	Index      int     `json:"index"`
	Path       string  `json:"path"`
	Status     string  `json:"status"`
	Strategy   string  `json:"strategy,omitempty"`
	Similarity float64 `json:"similarity,omitempty"`
	Line       int     `json:"line,omitempty"`
	// SyntaxErrors are the syntax errors this edit added.
	SyntaxErrors []SyntaxFinding `json:"syntax_errors,omitempty"`
}

var changeKinds = map[guard.ChangeKind]string{
	guard.ChangeCreated: "CREATED", guard.ChangeModified: "MODIFIED", guard.ChangeDeleted: "DELETED",
	guard.ChangeMoved: "MOVED", guard.ChangeUnchanged: "UNCHANGED", guard.ChangeDirectoryCreated: "DIRECTORY_CREATED",
}

func verdictOf(v *guard.Verdict) *Verdict {
	return &Verdict{
		OK: v.OK(), ToolName: v.ToolName, Repairs: v.Repairs, Violations: v.Violations,
		Mistakes: Mistakes{Consecutive: v.Mistakes.Consecutive, Limit: v.Mistakes.Limit, LimitReached: v.Mistakes.LimitReached, NotCounted: v.Mistakes.NotCounted},
	}
}

// result is the tool result: the text for the model, the verdict beside it.
func result(sv *Verdict, feedback string, text ...string) *sdk.CallToolResult {
	if !sv.OK {
		return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: feedback}}, StructuredContent: sv}
	}
	out := &sdk.CallToolResult{StructuredContent: sv}
	for _, t := range text {
		out.Content = append(out.Content, &sdk.TextContent{Text: t})
	}
	return out
}

// executionResult says what a write or edit changed: each file and its new
// hash, then the diff.
func executionResult(ex *guard.Execution) *sdk.CallToolResult {
	sv := verdictOf(ex.Verdict)
	sv.Applied, sv.Diff = ex.Applied, ex.Diff
	var b strings.Builder
	for _, c := range ex.Changes {
		kind := changeKinds[c.Kind]
		sv.Changes = append(sv.Changes, Change{Path: c.Path, Kind: kind, PreviousSHA256: c.PreviousSHA256, SHA256: c.SHA256, Size: c.Size, MovedTo: c.MovedTo})
		b.WriteString(guard.DescribeChange(c) + "\n")
	}
	for _, e := range ex.Edits {
		sv.Edits = append(sv.Edits, Edit{Index: e.Index, Path: e.Path, Status: string(e.Status), Strategy: string(e.Strategy), Similarity: e.Similarity, Line: e.Line,
			SyntaxErrors: syntaxFindings(ex.EditSyntax(e))})
		if e.Strategy != "" && e.Strategy != edit.StrategyExact {
			fmt.Fprintf(&b, "edit %d at line %d matched by %s (similarity %.2f)\n", e.Index, e.Line, strings.ToLower(string(e.Strategy)), e.Similarity)
		}
	}
	b.WriteString(repairsLine(ex.Repairs))
	sv.SyntaxChecks = syntaxChecks(ex.Syntax)
	if sv.OK && ex.Feedback != "" {
		b.WriteString(ex.Feedback) // report mode: the syntax errors the change added
	}
	if ex.Diff != "" {
		b.WriteString("\n" + ex.Diff)
	} else if ex.DiffElided != nil {
		fmt.Fprintf(&b, "\n(the diff, %d bytes, is too large to show)\n", ex.DiffElided.Size)
	}
	// A partial batch is not OK: its feedback says what was done.
	return result(sv, ex.Feedback, b.String())
}

// readResult gives the text read, then a line saying which lines of how
// many, and the hash an edit may expect.
func readResult(r *guard.Read) *sdk.CallToolResult {
	sv := verdictOf(r.Verdict)
	if !r.OK() {
		return result(sv, r.Feedback)
	}
	sv.Read = &r.FileText
	about := fmt.Sprintf("%s: lines %d-%d of %d, %d bytes, sha256 %s", r.Path, r.StartLine, r.EndLine, r.TotalLines, r.Size, r.SHA256)
	if r.TotalLines == 0 {
		about = fmt.Sprintf("%s: empty file, sha256 %s", r.Path, r.SHA256)
	}
	if r.Truncated {
		about += ". The text stopped at the size limit; read on with " + r.ReadOn()
	}
	content := r.Content
	if content == "" {
		content = "(no text)"
	}
	return result(sv, "", content, about+"\n"+repairsLine(r.Repairs))
}

// validateResult is a tools file's tool: toolguard checks the call and
// returns its normalised arguments; it carries nothing out.
func validateResult(v *guard.Verdict) *sdk.CallToolResult {
	sv := verdictOf(v)
	if v.OK() {
		sv.Arguments = json.RawMessage(v.ArgumentsJSON)
	}
	return result(sv, v.Feedback, fmt.Sprintf("The %s call is valid. Arguments: %s\n%s", v.ToolName, v.ArgumentsJSON, repairsLine(v.Repairs)))
}

// lookResult gives what a look tool found as the model reads it (after the
// feedback when each part was refused), and its structured form beside the
// verdict; media come as image, audio or resource content.
func lookResult(lk *guard.Look) *sdk.CallToolResult {
	sv := verdictOf(lk.Verdict)
	if lk.Result == nil {
		return result(sv, lk.Feedback)
	}
	sv.Result = lk.Result
	if m, ok := lk.Result.(guard.LookMedia); ok && lk.OK() {
		return &sdk.CallToolResult{Content: []sdk.Content{mediaContent(m.Media())}, StructuredContent: sv}
	}
	text := lk.Result.Text() + repairsLine(lk.Repairs)
	return result(sv, lk.Feedback+"\n\n"+text, text)
}

// mediaContent is a file's bytes as the MCP content of their type.
func mediaContent(path, mimeType string, data []byte) sdk.Content {
	switch {
	case strings.HasPrefix(mimeType, "image/"):
		return &sdk.ImageContent{Data: data, MIMEType: mimeType}
	case strings.HasPrefix(mimeType, "audio/"):
		return &sdk.AudioContent{Data: data, MIMEType: mimeType}
	}
	return &sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///" + path, MIMEType: mimeType, Blob: data}}
}
