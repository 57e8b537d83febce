// Package oracle generates tool calls with known answers: valid calls to the
// tools real agents declare, the same calls corrupted the ways models and
// servers corrupt them, and the calls rendered in every stream format. A
// repair engine fed a case must return exactly the original call or refuse
// it; a usable call that differs is silently wrong. Everything is derived
// from a seed, so a failure reproduces from its seed and kind.
//
// The package is pure: it imports nothing of the project, so the tests of
// every package on a path (repair, repair/stream) can drive it.
package oracle

import (
	"encoding/json"
	"fmt"
)

// Tool is a tool as an agent declares it: its name and the JSON Schema of
// its arguments (nil: no schema at all).
type Tool struct {
	Name   string
	Agent  string // who declares it, for messages
	Schema map[string]any
}

// toolSchemas are the schemas of real agents, typed, loose ({type: object},
// arrays without items) and untyped, in JSON as the agents send them.
var toolSchemas = []struct{ agent, name, schema string }{
	{"claude-code", "Write", `{"type":"object","properties":{
		"file_path":{"type":"string","description":"The absolute path to the file to write"},
		"content":{"type":"string","description":"The content to write to the file"}},
		"required":["file_path","content"],"additionalProperties":false}`},
	{"claude-code", "Edit", `{"type":"object","properties":{
		"file_path":{"type":"string"},"old_string":{"type":"string"},"new_string":{"type":"string"},
		"replace_all":{"type":"boolean","default":false}},
		"required":["file_path","old_string","new_string"],"additionalProperties":false}`},
	{"claude-code", "MultiEdit", `{"type":"object","properties":{
		"file_path":{"type":"string"},
		"edits":{"type":"array","minItems":1,"items":{"type":"object","properties":{
			"old_string":{"type":"string"},"new_string":{"type":"string"},"replace_all":{"type":"boolean"}},
			"required":["old_string","new_string"],"additionalProperties":false}}},
		"required":["file_path","edits"],"additionalProperties":false}`},
	{"claude-code", "TodoWrite", `{"type":"object","properties":{
		"todos":{"type":"array","items":{"type":"object","properties":{
			"content":{"type":"string","minLength":1},
			"status":{"type":"string","enum":["pending","in_progress","completed"]},
			"activeForm":{"type":"string","minLength":1}},
			"required":["content","status","activeForm"],"additionalProperties":false}}},
		"required":["todos"],"additionalProperties":false}`},
	// Many agents declare the todo list loosely: an array, items untyped.
	{"opencode", "todowrite", `{"type":"object","properties":{
		"todos":{"type":"array","description":"The updated todo list"}},"required":["todos"]}`},
	{"cline", "write_to_file", `{"type":"object","properties":{
		"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}`},
	{"cline", "replace_in_file", `{"type":"object","properties":{
		"path":{"type":"string"},"diff":{"type":"string"}},"required":["path","diff"]}`},
	{"roo", "insert_content", `{"type":"object","properties":{
		"path":{"type":"string"},"line":{"type":"integer"},"content":{"type":"string"}},
		"required":["path","line","content"]}`},
	{"codex", "apply_patch", `{"type":"object","properties":{
		"input":{"type":"string","description":"The entire contents of the apply_patch command"}},
		"required":["input"],"additionalProperties":false}`},
	{"codex", "shell", `{"type":"object","properties":{
		"command":{"type":"array","items":{"type":"string"}},
		"workdir":{"type":"string"},"timeout_ms":{"type":"number"}},
		"required":["command"],"additionalProperties":false}`},
	{"gemini-cli", "write_file", `{"type":"object","properties":{
		"file_path":{"type":"string"},"content":{"type":"string"}},"required":["file_path","content"]}`},
	{"gemini-cli", "replace", `{"type":"object","properties":{
		"file_path":{"type":"string"},"old_string":{"type":"string"},"new_string":{"type":"string"},
		"expected_replacements":{"type":"number","minimum":1}},
		"required":["file_path","old_string","new_string"]}`},
	{"openhands", "str_replace_editor", `{"type":"object","properties":{
		"command":{"type":"string","enum":["view","create","str_replace","insert","undo_edit"]},
		"path":{"type":"string"},"file_text":{"type":"string"},"old_str":{"type":"string"},
		"new_str":{"type":"string"},"insert_line":{"type":"integer"},
		"view_range":{"type":"array","items":{"type":"integer"}}},
		"required":["command","path"]}`},
	{"mcp-filesystem", "edit_file", `{"type":"object","properties":{
		"path":{"type":"string"},
		"edits":{"type":"array","items":{"type":"object","properties":{
			"oldText":{"type":"string"},"newText":{"type":"string"}},
			"required":["oldText","newText"],"additionalProperties":false}},
		"dryRun":{"type":"boolean","default":false}},
		"required":["path","edits"],"additionalProperties":false}`},
	{"mcp-filesystem", "write_file", `{"type":"object","properties":{
		"path":{"type":"string"},"content":{"type":"string"}},
		"required":["path","content"],"additionalProperties":false}`},
	// Loose: an object parameter with no properties, an array with no items.
	{"custom", "set_config", `{"type":"object","properties":{
		"name":{"type":"string"},"cfg":{"type":"object"},"tags":{"type":"array"}},
		"required":["name","cfg"]}`},
	// Untyped: an object schema that lists nothing.
	{"custom", "run_task", `{"type":"object"}`},
}

// Tools returns the agent tools, each call a fresh copy.
func Tools() []Tool {
	out := make([]Tool, 0, len(toolSchemas))
	for _, s := range toolSchemas {
		var schema map[string]any
		if err := json.Unmarshal([]byte(s.schema), &schema); err != nil {
			panic(fmt.Sprintf("oracle: schema of %s: %v", s.name, err))
		}
		out = append(out, Tool{Name: s.name, Agent: s.agent, Schema: schema})
	}
	return out
}

// properties returns a schema's properties and required names.
func properties(schema map[string]any) (map[string]any, []string) {
	props, _ := schema["properties"].(map[string]any)
	var req []string
	if r, ok := schema["required"].([]any); ok {
		for _, x := range r {
			if s, ok := x.(string); ok {
				req = append(req, s)
			}
		}
	}
	return props, req
}

// ParamSchema returns the schema of a top-level parameter, nil when the
// tool does not declare it.
func (t Tool) ParamSchema(name string) map[string]any {
	props, _ := properties(t.Schema)
	s, _ := props[name].(map[string]any)
	return s
}

// Required returns the tool's required top-level parameters.
func (t Tool) Required() []string {
	_, req := properties(t.Schema)
	return req
}

// Closed reports whether the tool's schema refuses undeclared parameters.
func (t Tool) Closed() bool {
	ap, ok := t.Schema["additionalProperties"].(bool)
	return ok && !ap
}
