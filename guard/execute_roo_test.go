package guard

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/toolguard/toolguard/repair"
)

// TestRooApplyDiffEndToEnd: Roo Code's apply_diff, as its models send it,
// runs through validation and execution; the file ends as Roo would leave
// it, the header lines never written, and a block with a marker in its
// REPLACE section changes nothing.
func TestRooApplyDiffEndToEnd(t *testing.T) {
	const file = "def a():\n    return None\n\n\ndef b():\n    return None\n"
	for _, tt := range []struct {
		name, call, want string
		code             string // the violation when refused
	}{
		{"claude-sonnet: two blocks, the start lines pick the second return",
			"<apply_diff>\n<path>m.py</path>\n<diff>\n<<<<<<< SEARCH\n:start_line:5\n-------\ndef b():\n=======\ndef b(x):\n>>>>>>> REPLACE\n\n<<<<<<< SEARCH\n:start_line:6\n-------\n    return None\n=======\n    return x\n>>>>>>> REPLACE\n</diff>\n</apply_diff>",
			"def a():\n    return None\n\n\ndef b(x):\n    return x\n", ""},
		{"gemini-2.5-pro: a block adding lines above moves the next start line",
			"<apply_diff>\n<path>m.py</path>\n<diff>\n<<<<<<< SEARCH\n:start_line:1\n-------\ndef a():\n=======\nimport os\n\n\ndef a():\n>>>>>>> REPLACE\n<<<<<<< SEARCH\n:start_line:6\n-------\n    return None\n=======\n    return os.getcwd()\n>>>>>>> REPLACE\n</diff>\n</apply_diff>",
			"import os\n\n\ndef a():\n    return None\n\n\ndef b():\n    return os.getcwd()\n", ""},
		{"gpt-4o: the header repeated in REPLACE is refused",
			"<apply_diff>\n<path>m.py</path>\n<diff>\n<<<<<<< SEARCH\n:start_line:6\n-------\n    return None\n=======\n:start_line:6\n-------\n    return 1\n>>>>>>> REPLACE\n</diff>\n</apply_diff>",
			file, repair.CodeInvalidValue},
		{"no start line: two equal returns stay ambiguous",
			"<apply_diff>\n<path>m.py</path>\n<diff>\n<<<<<<< SEARCH\n    return None\n=======\n    return 1\n>>>>>>> REPLACE\n</diff>\n</apply_diff>",
			file, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g, dir := newWorkspaceGuard(t)
			path := filepath.Join(dir, "m.py")
			if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
				t.Fatal(err)
			}
			call := repair.Call{Name: "apply_diff", Form: repair.FormXML, Text: tt.call}
			v, err := g.Validate(context.Background(), ValidateRequest{SessionID: t.Name() + "/validate", Call: call})
			if err != nil {
				t.Fatal(err)
			}
			if got := violationCodes(v); tt.code != "" && !slices.Equal(got, []string{tt.code}) || tt.code == "" && !v.OK() {
				t.Fatalf("validate: violations %+v, want %q", v.Violations, tt.code)
			}
			ex, err := g.ExecuteEdit(context.Background(), ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: t.Name(), Call: call}})
			if err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(path)
			if string(data) != tt.want {
				t.Errorf("file\n%s\nwant\n%s\n(violations %+v, edits %+v)", data, tt.want, ex.Violations, ex.Edits)
			}
			if tt.want == file && ex.Applied {
				t.Errorf("applied: %+v", ex.Edits)
			}
		})
	}
}

// TestRooMultiFileApplyDiffEndToEnd: Roo Code's multi-file apply_diff
// changing one file runs through validation and execution, each diff's
// <start_line> choosing among equal matches; changes to two files are
// refused and neither file changes.
func TestRooMultiFileApplyDiffEndToEnd(t *testing.T) {
	const file = "def a():\n    return None\n\n\ndef b():\n    return None\n"
	one := "<apply_diff>\n<args>\n<file>\n  <path>m.py</path>\n  <diff>\n    <content>\n<<<<<<< SEARCH\n    return None\n=======\n    return 2\n>>>>>>> REPLACE\n    </content>\n    <start_line>6</start_line>\n  </diff>\n" +
		"  <diff>\n    <content>\n<<<<<<< SEARCH\ndef a():\n=======\ndef a(x):\n>>>>>>> REPLACE\n    </content>\n    <start_line>1</start_line>\n  </diff>\n</file>\n</args>\n</apply_diff>"
	two := "<apply_diff>\n<args>\n<file>\n  <path>m.py</path>\n  <diff>\n    <content>\n<<<<<<< SEARCH\ndef a():\n=======\ndef a(x):\n>>>>>>> REPLACE\n    </content>\n  </diff>\n</file>\n" +
		"<file>\n  <path>n.py</path>\n  <diff>\n    <content>\n<<<<<<< SEARCH\ndef a():\n=======\ndef a(y):\n>>>>>>> REPLACE\n    </content>\n  </diff>\n</file>\n</args>\n</apply_diff>"
	for _, tt := range []struct {
		name, call, want string
		code             string // the violation when refused
	}{
		{"claude-sonnet: one file, two diffs, the start line picks the second return", one,
			"def a(x):\n    return None\n\n\ndef b():\n    return 2\n", ""},
		{"two files are refused", two, file, repair.CodeInvalidValue},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g, dir := newWorkspaceGuard(t)
			for _, name := range []string{"m.py", "n.py"} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(file), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			call := repair.Call{Name: "apply_diff", Form: repair.FormXML, Text: tt.call}
			v, err := g.Validate(context.Background(), ValidateRequest{SessionID: t.Name() + "/validate", Call: call})
			if err != nil {
				t.Fatal(err)
			}
			if got := violationCodes(v); tt.code != "" && !slices.Equal(got, []string{tt.code}) || tt.code == "" && !v.OK() {
				t.Fatalf("validate: violations %+v, want %q", v.Violations, tt.code)
			}
			ex, err := g.ExecuteEdit(context.Background(), ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: t.Name(), Call: call}})
			if err != nil {
				t.Fatal(err)
			}
			for name, want := range map[string]string{"m.py": tt.want, "n.py": file} {
				data, _ := os.ReadFile(filepath.Join(dir, name))
				if string(data) != want {
					t.Errorf("%s\n%s\nwant\n%s\n(violations %+v, edits %+v)", name, data, want, ex.Violations, ex.Edits)
				}
			}
			if tt.code != "" && ex.Applied {
				t.Errorf("applied: %+v", ex.Edits)
			}
		})
	}
}
