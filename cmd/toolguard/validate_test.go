package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidateCommand(t *testing.T) {
	tools := filepath.Join(t.TempDir(), "tools.yaml")
	if err := os.WriteFile(tools, []byte(`
tools:
  - name: add_semantic_memory
    content_params: [xml_memory]
    parameters:
      type: object
      properties: {xml_memory: {type: string}, user_message: {type: string}}
      required: [xml_memory, user_message]
`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		stdin    string
		wantCode int
		wantOK   bool
		wantTool string
		wantArgs string
		wantErr  string
	}{
		{name: "repaired JSON", args: []string{"--tool", "Write"}, stdin: `{"file_path":"a.py","text":"x"}`,
			wantCode: 0, wantOK: true, wantTool: "write_to_file", wantArgs: `{"content":"x","path":"a.py"}`},
		{name: "unusable JSON", args: []string{"--tool", "write_to_file"}, stdin: `{"path":"a.py"}`,
			wantCode: 1, wantTool: "write_to_file", wantArgs: `{"path":"a.py"}`},
		{name: "params", args: []string{"--tool", "edit", "--form", "params"}, stdin: `{"path":"a","old_text":"x","new_text":"","replace_all":"true"}`,
			wantCode: 0, wantOK: true, wantTool: "edit", wantArgs: `{"new_text":"","old_text":"x","path":"a","replace_all":true}`},
		{name: "xml names its tool", args: []string{"--form", "xml"}, stdin: "<write_to_file>\n<path>a</path>\n<content>\nb\n</content>\n</write_to_file>",
			wantCode: 0, wantOK: true, wantTool: "write_to_file", wantArgs: `{"content":"b","path":"a"}`},
		{name: "custom tool from a tools file", args: []string{"--form", "xml", "--tools-file", tools},
			stdin:    "<add_semantic_memory><xml_memory><m>1</m></xml_memory><user_message>hi</user_message></add_semantic_memory>",
			wantCode: 0, wantOK: true, wantTool: "add_semantic_memory", wantArgs: `{"user_message":"hi","xml_memory":"<m>1</m>"}`},
		{name: "json needs a tool", args: nil, stdin: `{}`, wantCode: 2, wantErr: "--tool is required"},
		{name: "params must be strings", args: []string{"--tool", "edit", "--form", "params"}, stdin: `{"replace_all":true}`, wantCode: 2, wantErr: "string values"},
		{name: "unknown form", args: []string{"--tool", "edit", "--form", "yaml"}, stdin: `{}`, wantCode: 2, wantErr: `--form "yaml"`},
		{name: "missing tools file", args: []string{"--tool", "edit", "--tools-file", "/nonexistent.yaml"}, stdin: `{}`, wantCode: 2, wantErr: "tools file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut strings.Builder
			code := run(append([]string{"validate"}, tc.args...), strings.NewReader(tc.stdin), &out, &errOut)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d; stderr %s", code, tc.wantCode, errOut.String())
			}
			if tc.wantErr != "" {
				if !strings.Contains(errOut.String(), tc.wantErr) {
					t.Errorf("stderr %q lacks %q", errOut.String(), tc.wantErr)
				}
				return
			}
			var v struct {
				OK            bool   `json:"ok"`
				ToolName      string `json:"tool_name"`
				ArgumentsJSON string `json:"arguments_json"`
				Mistakes      struct {
					Limit int `json:"limit"`
				} `json:"mistakes"`
			}
			if err := json.Unmarshal([]byte(out.String()), &v); err != nil {
				t.Fatalf("stdout is not a verdict: %v\n%s", err, out.String())
			}
			if v.OK != tc.wantOK || v.ToolName != tc.wantTool || v.ArgumentsJSON != tc.wantArgs || v.Mistakes.Limit != 3 {
				t.Errorf("verdict %+v, want ok=%v tool=%s args=%s", v, tc.wantOK, tc.wantTool, tc.wantArgs)
			}
		})
	}
}

// TestValidateCommandCountsOmitted: the offline verdict carries the counts
// of violations and repairs past the caps, as the server's does.
func TestValidateCommandCountsOmitted(t *testing.T) {
	unknown := `{"path":"a","content":"b"`
	var edits []string
	for i := range 60 {
		unknown += fmt.Sprintf(`,"unknown_%02d":1`, i)
		edits = append(edits, fmt.Sprintf(`{"path":"a","old_text":"x%d","new_text":"y","replace_all":"true"}`, i))
	}
	tests := []struct {
		name       string
		tool       string
		stdin      string
		violations int
		omitted    int
		repairs    int
		lastDetail string
	}{
		{"60 unknown parameters", "write_to_file", unknown + "}", 50, 10, 0, ""},
		{"60 coerced flags", "multi_edit", `{"edits":[` + strings.Join(edits, ",") + `]}`, 0, 0, 50, "(and 10 more repairs of the kinds listed, not listed)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut strings.Builder
			run([]string{"validate", "--tool", tc.tool}, strings.NewReader(tc.stdin), &out, &errOut)
			var v struct {
				Repairs []struct {
					Detail string `json:"detail"`
				} `json:"repairs"`
				Violations        []json.RawMessage `json:"violations"`
				ViolationsOmitted int               `json:"violations_omitted"`
			}
			if err := json.Unmarshal([]byte(out.String()), &v); err != nil {
				t.Fatalf("stdout is not a verdict: %v\n%s%s", err, out.String(), errOut.String())
			}
			if len(v.Violations) != tc.violations || v.ViolationsOmitted != tc.omitted || len(v.Repairs) != tc.repairs {
				t.Errorf("%d violations, %d omitted, %d repairs; want %d, %d, %d", len(v.Violations), v.ViolationsOmitted, len(v.Repairs), tc.violations, tc.omitted, tc.repairs)
			}
			if tc.lastDetail != "" && (len(v.Repairs) == 0 || !strings.HasSuffix(v.Repairs[len(v.Repairs)-1].Detail, tc.lastDetail)) {
				t.Errorf("the last repair does not end with %q: %+v", tc.lastDetail, v.Repairs)
			}
		})
	}
}

// TestValidateCommandBounded: the offline verdict is bounded as the
// server's: unknown parameters are not printed back, and a large content is
// printed once, whole in arguments_json.
func TestValidateCommandBounded(t *testing.T) {
	var many strings.Builder
	many.WriteString(`{"path":"a","content":"b"`)
	for i := range 100_000 {
		fmt.Fprintf(&many, `,"k%d":1`, i)
	}
	many.WriteString("}")
	content := strings.Repeat("x", 400_000)
	tests := []struct {
		name, stdin, wantArgs string
		elided                int
	}{
		{"100,000 unknown parameters", many.String(), `{"content":"b","path":"a"}`, 0},
		{"a 400 KB content", `{"path":"a","content":"` + content + `"}`, `{"content":"` + content + `","path":"a"}`, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut strings.Builder
			run([]string{"validate", "--tool", "write_to_file"}, strings.NewReader(tc.stdin), &out, &errOut)
			var v struct {
				ArgumentsJSON string         `json:"arguments_json"`
				Arguments     map[string]any `json:"arguments"`
				Elided        []struct {
					Field string `json:"field"`
				} `json:"elided"`
			}
			if err := json.Unmarshal([]byte(out.String()), &v); err != nil {
				t.Fatalf("stdout is not a verdict: %v\n%.500s%s", err, out.String(), errOut.String())
			}
			if v.ArgumentsJSON != tc.wantArgs || len(v.Arguments) != 2 || len(v.Elided) != tc.elided {
				t.Errorf("arguments_json %.100s, %d arguments, elided %v", v.ArgumentsJSON, len(v.Arguments), v.Elided)
			}
			if out.Len() > 512<<10 {
				t.Errorf("printed %d bytes", out.Len())
			}
		})
	}
}
