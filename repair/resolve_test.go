package repair

import (
	"slices"
	"testing"
)

// declaredTool compiles a tool as a request declares it: a name, aliases
// and a schema of string parameters.
func declaredTool(t *testing.T, reg *Registry, name string, aliases []string, params ...string) *Tool {
	t.Helper()
	props := map[string]any{}
	for _, p := range params {
		props[p] = map[string]any{"type": "string"}
	}
	tool, err := reg.Compile(ToolDef{Name: name, Aliases: aliases, Parameters: map[string]any{"type": "object", "properties": props}})
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

// TestResolveDeclaredFirst pins the precedence of docs/api.md
// ("Which tool a name stands for").
func TestResolveDeclaredFirst(t *testing.T) {
	reg := mustRegistry(t)
	claudeWrite := declaredTool(t, reg, "Write", nil, "file_path", "content")
	ownWrite := declaredTool(t, reg, "write_to_file", nil, "path", "content")
	camelWrite := declaredTool(t, reg, "WriteToFile", nil, "path", "content")
	ownEdit := declaredTool(t, reg, "edit", nil, "target", "text")
	save := declaredTool(t, reg, "save", []string{"write"}, "path", "content")
	writeFile := declaredTool(t, reg, "write_file", nil, "path", "content")
	for _, tc := range []struct {
		name     string
		declared []*Tool
		call     string
		want     *Tool  // a declared tool, or nil for a registry one
		builtin  string // the registry tool's name when want is nil ("" for none)
		aliased  bool
	}{
		{name: "declared Write, call write", declared: []*Tool{claudeWrite}, call: "write", want: claudeWrite, aliased: true},
		{name: "declared Write, call WRITE", declared: []*Tool{claudeWrite}, call: "WRITE", want: claudeWrite, aliased: true},
		{name: "declared Write, call Write", declared: []*Tool{claudeWrite}, call: "Write", want: claudeWrite},
		{name: "declared Write, call write_file: a folded spelling of no declared name", declared: []*Tool{claudeWrite}, call: "write_file", builtin: "write_to_file", aliased: true},
		{name: "declared Write, call create_file: an undeclared built-in's alias", declared: []*Tool{claudeWrite}, call: "create_file", builtin: "write_to_file", aliased: true},
		{name: "declared Write, call functions.write", declared: []*Tool{claudeWrite}, call: "functions.write", want: claudeWrite, aliased: true},
		{name: "no declared tools, call write", call: "write", builtin: "write_to_file", aliased: true},
		{name: "no declared tools, call Write", call: "Write", builtin: "write_to_file", aliased: true},
		{name: "declared write_to_file, call create_file", declared: []*Tool{ownWrite}, call: "create_file", want: ownWrite, aliased: true},
		{name: "declared write_to_file, call Write", declared: []*Tool{ownWrite}, call: "Write", want: ownWrite, aliased: true},
		{name: "declared write_to_file, call WRITE-TO-FILE", declared: []*Tool{ownWrite}, call: "WRITE-TO-FILE", want: ownWrite, aliased: true},
		{name: "declared WriteToFile, call create_file", declared: []*Tool{camelWrite}, call: "create_file", want: camelWrite, aliased: true},
		{name: "declared edit overrides the built-in", declared: []*Tool{ownEdit}, call: "edit", want: ownEdit},
		{name: "declared edit takes the built-in's aliases", declared: []*Tool{ownEdit}, call: "str_replace", want: ownEdit, aliased: true},
		{name: "a declared alias before a built-in's", declared: []*Tool{save}, call: "write", want: save, aliased: true},
		{name: "an exact declared name before a folded one", declared: []*Tool{claudeWrite, writeFile}, call: "write_file", want: writeFile},
		{name: "a folded declared name, the first declared", declared: []*Tool{claudeWrite, writeFile}, call: "WRITE", want: claudeWrite, aliased: true},
		{name: "an exact declared alias before a folded name", declared: []*Tool{claudeWrite, save}, call: "write", want: save, aliased: true},
		{name: "declared tools, an unrelated built-in", declared: []*Tool{claudeWrite}, call: "move_file", builtin: "move_file"},
		{name: "unknown", declared: []*Tool{claudeWrite}, call: "nope"},
	} {
		got, aliased := reg.Resolve(tc.call, tc.declared)
		switch {
		case tc.want != nil && got != tc.want:
			t.Errorf("%s: Resolve(%q) = %v, want the declared %q", tc.name, tc.call, got, tc.want.Name())
		case tc.want == nil && tc.builtin == "" && got != nil:
			t.Errorf("%s: Resolve(%q) = %q, want none", tc.name, tc.call, got.Name())
		case tc.want == nil && tc.builtin != "" && (got == nil || got != reg.Tool(tc.builtin) || slices.Contains(tc.declared, got)):
			t.Errorf("%s: Resolve(%q) = %v, want the registry's %q", tc.name, tc.call, got, tc.builtin)
		case aliased != tc.aliased:
			t.Errorf("%s: Resolve(%q) aliased = %v, want %v", tc.name, tc.call, aliased, tc.aliased)
		}
	}
}

func TestFoldsTo(t *testing.T) {
	for _, s := range []string{"", "Write", "write_to_file", "WRITE-TO-FILE", "write to file", "wr", "writetofilex", "é_A"} {
		for _, f := range []string{"", "write", "writetofile", "éa", "wr"} {
			if got, want := foldsTo(s, f), foldName(s) == f; got != want {
				t.Errorf("foldsTo(%q, %q) = %v, want %v", s, f, got, want)
			}
		}
	}
}
