package mcp

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/repair"
)

// The filesystem profile serves the 14 tools of the reference MCP file
// server, @modelcontextprotocol/server-filesystem (2026.8.31), under its
// names, argument shapes and result text, so that a client configured for
// it works unchanged. Each call is one call of toolguard's own built-in
// tool, through the same guard (confinement, deny, repairs, mistakes);
// only the arguments' names and the answer's layout change. The table
// below is the whole mapping: a tool's change touches one row.

// The profiles of Options.Profile.
const (
	ProfileToolguard  = "toolguard"
	ProfileFilesystem = "filesystem"
)

// Profiles lists the profiles a server may be started with.
var Profiles = []string{ProfileToolguard, ProfileFilesystem}

// filesystemToolsJSON is the reference server's tools/list (names, titles,
// descriptions, input and output schemas, annotations), as it lists them.
//
//go:embed profile_filesystem_tools.json
var filesystemToolsJSON []byte

// fsTool maps one reference tool onto toolguard's.
type fsTool struct {
	// tool is toolguard's built-in tool the call becomes ("" for none).
	tool string
	// rename maps the reference's argument names onto tool's where no
	// alias of tool's already does.
	rename map[string]string
	// own are the reference's arguments the profile reads itself and tool
	// does not take; set adds tool's arguments the reference implies.
	own []string
	set map[string]any
	// render carries out the call and lays out the answer as the
	// reference server does.
	render func(*Server, context.Context, *fsCall) (*sdk.CallToolResult, error)
}

// maxFSEntries bounds a listing, tree or search: the reference has no
// bound, toolguard's largest.
const maxFSEntries = guard.MaxListEntries

var filesystemTools = map[string]fsTool{
	"read_file":                 {tool: guard.ReadToolName, render: fsReadText},
	"read_text_file":            {tool: guard.ReadToolName, render: fsReadText},
	"read_media_file":           {tool: guard.MediaToolName, render: fsMedia},
	"read_multiple_files":       {tool: guard.ReadFilesToolName, render: fsReadMany},
	"write_file":                {tool: "write_to_file", render: fsDone("Successfully wrote to %s", "path")},
	"edit_file":                 {tool: "multi_edit", own: []string{"dryRun"}, render: fsEdit},
	"create_directory":          {tool: "create_directory", render: fsDone("Successfully created directory %s", "path")},
	"list_directory":            {tool: guard.ListToolName, set: map[string]any{"max_entries": maxFSEntries}, render: fsList},
	"list_directory_with_sizes": {tool: guard.ListToolName, own: []string{"sortBy"}, set: map[string]any{"max_entries": maxFSEntries}, render: fsListSizes},
	"directory_tree": {tool: guard.ListToolName, rename: map[string]string{"excludePatterns": "exclude"},
		set: map[string]any{"recursive": true, "max_entries": maxFSEntries}, render: fsTree},
	"move_file":                {tool: "move_file", render: fsDone("Successfully moved %s to %s", "source", "destination")},
	"search_files":             {tool: guard.FindToolName, rename: map[string]string{"excludePatterns": "exclude"}, set: map[string]any{"max_results": maxFSEntries}, render: fsSearch},
	"get_file_info":            {tool: guard.InfoToolName, render: fsInfo},
	"list_allowed_directories": {render: fsAllowed},
}

// fsPathArgs are the arguments naming paths, in the order that picks the
// workspace a call acts on.
var fsPathArgs = []string{"path", "paths", "source", "destination"}

// addFilesystemTools lists the reference server's tools.
func (s *Server) addFilesystemTools(srv *sdk.Server, modelID, _ string) error {
	var tools []*sdk.Tool
	if err := json.Unmarshal(filesystemToolsJSON, &tools); err != nil {
		return fmt.Errorf("mcp: the filesystem profile's tools: %w", err)
	}
	for _, t := range tools {
		ft, ok := filesystemTools[t.Name]
		if !ok {
			return fmt.Errorf("mcp: the filesystem profile lists %s but does not map it", t.Name)
		}
		if ft.tool != "" && s.g.Registry().Tool(ft.tool) == nil && ft.tool != guard.ReadToolName {
			return fmt.Errorf("mcp: the filesystem profile maps %s onto %s, which the registry lacks", t.Name, ft.tool)
		}
		srv.AddTool(t, s.fsHandler(t.Name, ft, modelID))
	}
	return nil
}

// fsCall is one call of a reference tool on its way through the guard.
type fsCall struct {
	name string
	ft   fsTool
	// args are the arguments as sent; nil when they are no JSON object
	// (the guard is handed the text as it came, to repair or refuse).
	args map[string]json.RawMessage
	text string
	req  guard.ExecuteRequest
	// allowed are the session's workspaces, the default first.
	allowed []string
}

func (s *Server) fsHandler(name string, ft fsTool, modelID string) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (res *sdk.CallToolResult, err error) {
		defer func(start time.Time) { s.metrics.call(name, start, res, err) }(time.Now())
		c := callerOf(req)
		allowed, refusal := s.workspacesFor(ctx, req.Session, c)
		if refusal != "" {
			return errorResult(refusal), nil
		}
		call := &fsCall{name: name, ft: ft, text: string(req.Params.Arguments), allowed: allowed}
		if err := json.Unmarshal(req.Params.Arguments, &call.args); err != nil {
			call.args = nil
		}
		call.req = guard.ExecuteRequest{
			ValidateRequest: guard.ValidateRequest{SessionID: sessionKey(c, s.sessionID(req.Session)), ModelID: modelID},
			Workspace:       s.fsWorkspace(call),
		}
		if len(allowed) > 0 && call.req.Workspace == "" {
			call.req.Workspace = allowed[0]
		}
		if err := call.prepare(); err != nil {
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		res, err = ft.render(s, ctx, call)
		if err != nil {
			return s.failure(name, err)
		}
		return res, nil
	}
}

// prepare writes the call of toolguard's tool: the reference's arguments
// renamed, those the profile reads left out, those implied added.
func (c *fsCall) prepare() error {
	text := c.text
	if c.args != nil {
		args := make(map[string]json.RawMessage, len(c.args)+len(c.ft.set))
		for k, v := range c.args {
			if to, ok := c.ft.rename[k]; ok {
				k = to
			}
			args[k] = v
		}
		for _, k := range c.ft.own {
			delete(args, k)
		}
		for k, v := range c.ft.set {
			b, err := json.Marshal(v)
			if err != nil {
				return fmt.Errorf("mcp: %s: %w", c.name, err)
			}
			args[k] = b
		}
		b, err := json.Marshal(args)
		if err != nil {
			return fmt.Errorf("mcp: %s: %w", c.name, err)
		}
		text = string(b)
	}
	c.req.Call = repair.Call{Name: c.ft.tool, Form: repair.FormText, Text: text}
	return nil
}

// str is a string argument as sent ("" when absent or not a string).
func (c *fsCall) str(name string) string {
	var v string
	if c.args != nil {
		_ = json.Unmarshal(c.args[name], &v)
	}
	return v
}

// fsWorkspace picks the workspace a call acts on: the allowed one holding
// its first absolute path (the innermost), else the session's default.
// A path in none is left to the guard to refuse.
func (s *Server) fsWorkspace(c *fsCall) string {
	for _, name := range fsPathArgs {
		var paths []string
		if p := c.str(name); p != "" {
			paths = []string{p}
		} else if c.args != nil {
			_ = json.Unmarshal(c.args[name], &paths)
		}
		for _, p := range paths {
			if !filepath.IsAbs(p) {
				continue
			}
			best, bestLen := "", -1
			for _, ws := range c.allowed {
				for _, d := range s.allowedDirs(ws) {
					if len(d) > bestLen && insideAny(filepath.Clean(p), []string{d}) {
						best, bestLen = ws, len(d)
					}
				}
			}
			if best != "" {
				return best
			}
		}
	}
	return ""
}

// allowedDirs is a workspace's directory as configured, made absolute, and
// its real path when that differs: the reference lists both.
func (s *Server) allowedDirs(name string) []string {
	dir := s.opts.Workspaces[name]
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil || real == abs {
		return []string{abs}
	}
	return []string{abs, real}
}

// realPath is a workspace-relative path as an absolute one in the
// workspace's real directory, as the reference names files.
func (s *Server) realPath(ws, rel string) string {
	dirs := s.allowedDirs(ws)
	if len(dirs) == 0 {
		return rel
	}
	return filepath.Join(dirs[len(dirs)-1], filepath.FromSlash(rel))
}

// fsText is a successful answer: the text, and the same as the
// structuredContent the reference's output schema declares.
func fsText(text string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, StructuredContent: map[string]any{"content": text}}
}

// fsRefused is a call the guard refused: its feedback, as the reference
// gives an error's message.
func fsRefused(v *guard.Verdict) *sdk.CallToolResult {
	return errorResult(strings.TrimSpace(v.Feedback))
}

// fsDone runs a change and says it was done in the reference's words,
// naming the arguments as sent.
func fsDone(format string, args ...string) func(*Server, context.Context, *fsCall) (*sdk.CallToolResult, error) {
	return func(s *Server, ctx context.Context, c *fsCall) (*sdk.CallToolResult, error) {
		ex, err := s.fsExecute(ctx, c)
		if err != nil {
			return nil, err
		}
		if !ex.OK() {
			return fsRefused(ex.Verdict), nil
		}
		vals := make([]any, len(args))
		for i, a := range args {
			vals[i] = c.str(a)
		}
		return fsText(fmt.Sprintf(format, vals...)), nil
	}
}

// fsExecute carries out a write or a change of toolguard's tool.
func (s *Server) fsExecute(ctx context.Context, c *fsCall) (*guard.Execution, error) {
	if t := s.g.Registry().Tool(c.ft.tool); t != nil && s.g.ActionOf(t) == guard.ActionWrite {
		return s.g.ExecuteWrite(ctx, c.req)
	}
	return s.g.ExecuteEdit(ctx, c.req)
}

// fsAllowed lists the session's allowed directories, each as configured
// and as its real path when they differ.
func fsAllowed(s *Server, _ context.Context, c *fsCall) (*sdk.CallToolResult, error) {
	var dirs []string
	for _, ws := range c.allowed {
		dirs = append(dirs, s.allowedDirs(ws)...)
	}
	return fsText("Allowed directories:\n" + strings.Join(dirs, "\n")), nil
}
