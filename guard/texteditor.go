package guard

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/toolguard/toolguard/edit"
	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/workspace"
)

// Anthropic's text editor tool (str_replace_based_edit_tool) is a
// multiplexer of the registry (builtin_tools.yaml); what is its own lives
// here: view reads through read_file, with view_range, and its str_replace
// fails with the sentences a Claude model was trained on.

// readCallDef is read_file as the guard serves calls of it: read_file's
// definition plus view's view_range ([start, end], end -1 for the end).
var readCallDef = withViewRange(readToolDef)

var readCallKey, _ = defKey(readCallDef)

func withViewRange(def repair.ToolDef) repair.ToolDef {
	params := maps.Clone(def.Parameters)
	props := maps.Clone(params["properties"].(map[string]any))
	props["view_range"] = map[string]any{"type": "array", "items": map[string]any{"type": "integer"},
		"description": "Anthropic's text editor range: [start, end], 1-based lines, end -1 for the end of the file. Not with offset or limit."}
	params["properties"] = props
	def.Parameters = params
	return def
}

// withReadTool supplies read_file to a call of a multiplexer, whose view
// command reads; a call that brings the guard's read_file first keeps it.
func (g *Guard) withReadTool(req ValidateRequest) ValidateRequest {
	if !g.reg.IsMultiplexer(req.Call.Name) || servesRead(req.Tools) {
		return req
	}
	req.Tools = append([]repair.ToolDef{readCallDef}, req.Tools...)
	return req
}

// servesRead says the first of tools is the guard's read_file.
func servesRead(tools []repair.ToolDef) bool {
	if len(tools) == 0 || tools[0].Name != ReadToolName {
		return false
	}
	k, err := defKey(tools[0])
	return err == nil && k == readCallKey
}

// viewRange reads view_range as read_file's offset and limit, when the
// call's tool is the guard's read_file (extra[0], see withReadTool); a
// range that is not two line numbers is the violation Anthropic's is.
func viewRange(req ValidateRequest, extra []*repair.Tool, res *repair.Result) {
	v, ok := res.Args["view_range"]
	if !ok || res.Tool == nil || len(extra) == 0 || res.Tool != extra[0] || !servesRead(req.Tools) {
		return
	}
	r, _ := v.([]any)
	var start, end int
	var err error
	if len(r) == 2 {
		if start, err = intArg(r[0]); err == nil {
			end, err = intArg(r[1])
		}
	}
	switch {
	case len(r) != 2 || err != nil:
		res.Violate(repair.CodeInvalidValue, "view_range", "Invalid `view_range`. It should be a list of two integers.")
	case res.Args["offset"] != nil || res.Args["limit"] != nil:
		res.Violate(repair.CodeConflictingParams, "view_range", "Give view_range, or offset and limit, not both.")
	case start < 1:
		res.Violate(repair.CodeInvalidValue, "view_range", fmt.Sprintf("Invalid `view_range`: [%d, %d]. Its first element `%d` should be a line of the file, from 1.", start, end, start))
	case end != -1 && end < start:
		res.Violate(repair.CodeInvalidValue, "view_range", fmt.Sprintf("Invalid `view_range`: [%d, %d]. Its second element `%d` should be larger or equal than its first `%d`", start, end, end, start))
	default:
		delete(res.Args, "view_range")
		res.Args["offset"] = start
		detail := fmt.Sprintf("view_range [%d, %d] is offset %d to the end", start, end, start)
		if end != -1 {
			res.Args["limit"] = end - start + 1
			detail = fmt.Sprintf("view_range [%d, %d] is offset %d and limit %d", start, end, start, end-start+1)
		}
		res.AddRepair(repair.CodeAliasRenamed, "view_range", detail)
	}
}

// viewFolder answers a view of a folder as Anthropic's tool does: the
// files and folders in it, two levels deep (list_directory's listing),
// where the read refused the path as a directory.
func (g *Guard) viewFolder(ctx context.Context, ws *workspace.Workspace, req ValidateRequest, res *repair.Result, out *Read) error {
	if !g.reg.IsMultiplexer(req.Call.Name) {
		return nil
	}
	i := slices.IndexFunc(res.Violations, func(v repair.Violation) bool {
		return v.Param == "path" && v.Code == CodeNotRegular && strings.Contains(v.Message, "director")
	})
	if i < 0 || len(res.Violations) != 1 {
		return nil
	}
	path, _ := res.Args["path"].(string)
	l, err := list(ctx, ws, lookArgs{path: path, max: DefaultListEntries}, 2)
	if err != nil {
		if workspace.CodeOf(err) == "" {
			return err
		}
		return nil // the read's refusal stands
	}
	res.Violations = nil
	out.FileText = FileText{Path: l.Path, Content: fmt.Sprintf("Here's the files and directories up to 2 levels deep in %s:\n%s", path, l.Text())}
	return nil
}

// textEditorMessages words a failed str_replace as Anthropic's tool does
// when the call came through str_replace_based_edit_tool: the sentence the
// model knows first, then toolguard's closest region.
func (g *Guard) textEditorMessages(req ValidateRequest, res *repair.Result, ex *Execution) {
	if !g.reg.IsMultiplexer(req.Call.Name) || res.ToolName != "edit" {
		return
	}
	old, _ := res.Args["old_text"].(string)
	path, _ := res.Args["path"].(string)
	old = clipOld(old)
	for i, v := range res.Violations {
		switch v.Code {
		case CodeEditNotFound:
			msg := fmt.Sprintf("No replacement was performed, old_str `%s` did not appear verbatim in %s.", old, path)
			if k := strings.IndexByte(v.Message, '\n'); k >= 0 {
				msg += v.Message[k:]
			}
			res.Violations[i].Message = msg
		case CodeEditAmbiguous:
			var lines []int
			for _, o := range ex.Edits {
				if o.Status == edit.StatusAmbiguous {
					lines = o.Matches
				}
			}
			res.Violations[i].Message = fmt.Sprintf("No replacement was performed. Multiple occurrences of old_str `%s` in lines %s. Please ensure it is unique",
				old, pyList(lines))
		}
	}
}

// maxQuotedOld bounds the old text a message repeats.
const maxQuotedOld = 2000

func clipOld(s string) string {
	if len(s) <= maxQuotedOld {
		return s
	}
	return cutAtRune(s, maxQuotedOld) + fmt.Sprintf("… (%d bytes)", len(s))
}

// pyList is a list of lines as Anthropic's tool prints it: [3, 7].
func pyList(xs []int) string { return "[" + joinInts(xs) + "]" }
