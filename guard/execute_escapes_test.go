package guard

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/edit"
	"github.com/toolguard/toolguard/repair"
)

// runExecute sends one call (JSON arguments) to ExecuteEdit or ExecuteWrite.
func runExecute(t *testing.T, g *Guard, tool string, args map[string]any, partial bool) *Execution {
	t.Helper()
	text, err := repair.EncodeJSON(args)
	if err != nil {
		t.Fatal(err)
	}
	req := ExecuteRequest{
		ValidateRequest: ValidateRequest{SessionID: t.Name(), Call: repair.Call{Name: tool, Form: repair.FormText, Text: string(text)}},
		Partial:         partial,
	}
	run := g.ExecuteEdit
	if tool == "write_to_file" {
		run = g.ExecuteWrite
	}
	ex, err := run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

func repairCodes(v *Verdict) []string {
	var out []string
	for _, r := range v.Repairs {
		out = append(out, r.Code+":"+r.Param)
	}
	return out
}

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestEditEscapesDecoded: an old text whose \n were written as two
// characters is decoded only when it is not found as given but found once
// decoded, on an equality rung; the new text follows unless decoding it
// could break a string literal, which is refused.
func TestEditEscapesDecoded(t *testing.T) {
	const twoLines = "x := 1\ny := 2\nz := 3\n"
	tests := []struct {
		name, file   string
		old, new     string
		want         string // the file afterwards, byte for byte
		status       edit.Status
		repairs      []string
		detail, hint string // substrings of the repair's detail, the violation's message
	}{
		{name: "one literal \\n", file: "line1\nline2\nline3\n", old: `line1\nline2`, new: `a\nb`,
			want: "a\nb\nline3\n", status: edit.StatusApplied, repairs: []string{"ESCAPES_DECODED:old_text"},
			detail: "old_text and new_text decoded"},
		{name: "two literal \\n", file: "line1\nline2\nline3\n", old: `line1\nline2\nline3`, new: `x\ny\nz`,
			want: "x\ny\nz\n", status: edit.StatusApplied, repairs: []string{"ESCAPES_DECODED:old_text"}},
		{name: "escaped quotes too", file: "print(\"hi\")\nx = 1\n", old: `print(\"hi\")\nx = 1`, new: `print(\"bye\")\nx = 1`,
			want: "print(\"bye\")\nx = 1\n", status: edit.StatusApplied, repairs: []string{"ESCAPES_DECODED:old_text"}},
		{name: "escaped string escape in the new text", file: twoLines, old: `x := 1\ny := 2`, new: `fmt.Println(\"a\\nb\")\ny := 2`,
			want: "fmt.Println(\"a\\nb\")\ny := 2\nz := 3\n", status: edit.StatusApplied, repairs: []string{"ESCAPES_DECODED:old_text"}},
		{name: "indentation rung", file: "def f():\n    a = 1\n    b = 2\n", old: `a = 1\nb = 2`, new: `a = 10\nb = 2`,
			want: "def f():\n    a = 10\n    b = 2\n", status: edit.StatusApplied, repairs: []string{"ESCAPES_DECODED:old_text"}},
		{name: "new text with real line breaks kept", file: twoLines, old: `x := 1\ny := 2`, new: "fmt.Printf(\"%d\\n\", x)\ny := 2",
			want: "fmt.Printf(\"%d\\n\", x)\ny := 2\nz := 3\n", status: edit.StatusApplied, repairs: []string{"ESCAPES_DECODED:old_text"},
			detail: "new_text, which has real line breaks, was kept as given"},
		{name: "a final real line break is layout", file: twoLines, old: `x := 1\ny := 2\n`, new: "a := 0\\nb := 1\n",
			want: "a := 0\nb := 1\nz := 3\n", status: edit.StatusApplied, repairs: []string{"ESCAPES_DECODED:old_text"},
			detail: "old_text and new_text decoded"},
		{name: "new text without escapes", file: twoLines, old: `x := 1\ny := 2`, new: "w := 0",
			want: "w := 0\nz := 3\n", status: edit.StatusApplied, repairs: []string{"ESCAPES_DECODED:old_text"}},
		{name: "refused: \\n inside a literal of a one-line new text", file: twoLines, old: `x := 1\ny := 2`, new: `print("a\n")`,
			want: twoLines, status: edit.StatusNotFound, hint: "inside a string literal"},
		{name: "refused: real line breaks and structural \\n", file: twoLines, old: `x := 1\ny := 2`, new: "a := 0\\nb := 1\ny := 2",
			want: twoLines, status: edit.StatusNotFound, hint: "mixes real line breaks"},
		{name: "found as given: literal \\n is the file's", file: "s = \"a\\nb\"\n", old: `s = "a\nb"`, new: `s = "c\nd"`,
			want: "s = \"c\\nd\"\n", status: edit.StatusApplied},
		{name: "decoded match on a similarity rung is not taken", file: "one two three four\nfive six seven eight\nnine ten eleven twelve\n",
			old: `one two three four\nfive six seven eigth\nnine ten eleven twelve`, new: `x\ny\nz`,
			want: "one two three four\nfive six seven eight\nnine ten eleven twelve\n", status: edit.StatusNotFound},
		{name: "not found even decoded", file: twoLines, old: `a\nb`, new: `c\nd`, want: twoLines, status: edit.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, dir := newWorkspaceGuard(t)
			g.syntaxMode = SyntaxOff // the files are snippets, not whole Go files: the gate is TestSyntaxGate's
			writeFile(t, dir, "f.go", tt.file)
			ex := runExecute(t, g, "edit", map[string]any{"path": "f.go", "old_text": tt.old, "new_text": tt.new}, false)
			if got := readFile(t, dir, "f.go"); got != tt.want {
				t.Errorf("file = %q, want %q", got, tt.want)
			}
			if len(ex.Edits) != 1 || ex.Edits[0].Status != tt.status {
				t.Fatalf("edits = %+v, want one %s", ex.Edits, tt.status)
			}
			if got := repairCodes(ex.Verdict); !slices.Equal(got, tt.repairs) {
				t.Errorf("repairs = %v, want %v", got, tt.repairs)
			}
			if tt.detail != "" && !strings.Contains(ex.Repairs[0].Detail, tt.detail) {
				t.Errorf("detail %q lacks %q", ex.Repairs[0].Detail, tt.detail)
			}
			if tt.hint != "" && (len(ex.Violations) == 0 || !strings.Contains(ex.Violations[0].Message, tt.hint)) {
				t.Errorf("violations %+v, want one saying %q", ex.Violations, tt.hint)
			}
		})
	}
}

// TestMultiEditEscapesDecodedPerEdit: each decoded edit says so once, on
// its own parameter.
func TestMultiEditEscapesDecodedPerEdit(t *testing.T) {
	g, dir := newWorkspaceGuard(t)
	writeFile(t, dir, "a.txt", "a\nb\nc\nd\n")
	ex := runExecute(t, g, "multi_edit", map[string]any{"path": "a.txt", "edits": []any{
		map[string]any{"old_text": `a\nb`, "new_text": `A\nB`},
		map[string]any{"old_text": "c", "new_text": "C"},
		map[string]any{"old_text": `d\n`, "new_text": `D\n`},
	}}, false)
	if got, want := readFile(t, dir, "a.txt"), "A\nB\nC\nD\n"; got != want {
		t.Errorf("file = %q, want %q", got, want)
	}
	want := []string{"ESCAPES_DECODED:edits/0/old_text", "ESCAPES_DECODED:edits/2/old_text"}
	if got := repairCodes(ex.Verdict); !slices.Equal(got, want) {
		t.Errorf("repairs = %v, want %v", got, want)
	}
}

// TestSearchReplaceEscapesDecoded: each SEARCH/REPLACE block is decoded on
// its own evidence and says which block it was.
func TestSearchReplaceEscapesDecoded(t *testing.T) {
	g, dir := newWorkspaceGuard(t)
	writeFile(t, dir, "a.py", "def f():\n    return 1\n\nx = 2\n")
	diff := "------- SEARCH\nx = 2\n=======\nx = 3\n+++++++ REPLACE\n" +
		"------- SEARCH\n" + `def f():\n    return 1` + "\n=======\n" + `def f():\n    return 10` + "\n+++++++ REPLACE\n"
	ex := runExecute(t, g, "replace_in_file", map[string]any{"path": "a.py", "diff": diff}, false)
	if got, want := readFile(t, dir, "a.py"), "def f():\n    return 10\n\nx = 3\n"; got != want {
		t.Errorf("file = %q, want %q; violations %+v", got, want, ex.Violations)
	}
	if len(ex.Repairs) != 1 || ex.Repairs[0].Code != repair.CodeEscapesDecoded || !strings.HasPrefix(ex.Repairs[0].Detail, "edit 2: ") {
		t.Errorf("repairs %+v, want one ESCAPES_DECODED for edit 2", ex.Repairs)
	}
}

// TestXMLEditEscapesDecoded: the multi-replace seed's case, an XML block
// whose parser keeps \n as two characters.
func TestXMLEditEscapesDecoded(t *testing.T) {
	g, dir := newWorkspaceGuard(t)
	writeFile(t, dir, "f.txt", "line1\nline2\nline3\n")
	ex, err := g.ExecuteEdit(context.Background(), ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: t.Name(),
		Call: repair.Call{Name: "edit", Form: repair.FormXML, Text: `<edit><path>f.txt</path><old_text>line1\nline2</old_text><new_text>a\nb</new_text></edit>`}}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := readFile(t, dir, "f.txt"), "a\nb\nline3\n"; got != want || !ex.OK() {
		t.Errorf("file = %q (ok %v, violations %+v), want %q", got, ex.OK(), ex.Violations, want)
	}
	if got := repairCodes(ex.Verdict); !slices.Contains(got, "ESCAPES_DECODED:old_text") {
		t.Errorf("repairs %v lack ESCAPES_DECODED:old_text", got)
	}
}
