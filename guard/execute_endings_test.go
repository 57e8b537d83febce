package guard

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/workspace"
)

// TestWriteKeepsLineEndings: an overwrite whose content has only LF and no
// BOM keeps the file's dominant CRLF and its BOM, says so, and diffs only
// the lines that changed; a dry run shows the same and writes nothing.
func TestWriteKeepsLineEndings(t *testing.T) {
	tests := []struct {
		name, old string // old "" with exists false: no file
		exists    bool
		content   string
		want      string
		repairs   []string
		detail    string
		diffLines []string // the diff's changed lines, in order
	}{
		{name: "CRLF and BOM", old: "\uFEFFx\r\ny\r\n", exists: true, content: "x\nz\n", want: "\uFEFFx\r\nz\r\n",
			repairs: []string{"LINE_ENDINGS_KEPT:content"}, detail: "the file's CRLF line endings and its byte order mark kept",
			diffLines: []string{"-y\r", "+z\r"}},
		{name: "CRLF", old: "a\r\nb\r\n", exists: true, content: "a\nb\nc\n", want: "a\r\nb\r\nc\r\n",
			repairs: []string{"LINE_ENDINGS_KEPT:content"}, detail: "the file's CRLF line endings kept", diffLines: []string{"+c\r"}},
		{name: "BOM", old: "\uFEFFa\n", exists: true, content: "b\n", want: "\uFEFFb\n",
			repairs: []string{"LINE_ENDINGS_KEPT:content"}, detail: "the file's byte order mark kept", diffLines: []string{"-\uFEFFa", "+\uFEFFb"}},
		{name: "content with CRLF is written as given", old: "\uFEFFa\r\n", exists: true, content: "a\r\nb\n", want: "a\r\nb\n",
			diffLines: []string{"-\uFEFFa\r", "+a\r", "+b"}},
		{name: "mostly LF", old: "a\nb\nc\r\n", exists: true, content: "a\n", want: "a\n", diffLines: []string{"-b", "-c\r"}},
		{name: "empty file", old: "", exists: true, content: "a\n", want: "a\n", diffLines: []string{"+a"}},
		{name: "new file", content: "a\n", want: "a\n", diffLines: []string{"+a"}},
	}
	for _, tt := range tests {
		for _, dry := range []bool{false, true} {
			name := tt.name
			if dry {
				name += ", dry run"
			}
			t.Run(name, func(t *testing.T) {
				g, dir := newWorkspaceGuard(t)
				if tt.exists {
					writeFile(t, dir, "f.txt", tt.old)
				}
				text, _ := repair.EncodeJSON(map[string]any{"path": "f.txt", "content": tt.content})
				ex, err := g.ExecuteWrite(context.Background(), ExecuteRequest{
					ValidateRequest: ValidateRequest{SessionID: t.Name(), Call: repair.Call{Name: "write_to_file", Form: repair.FormText, Text: string(text)}},
					DryRun:          dry,
				})
				if err != nil {
					t.Fatal(err)
				}
				wantFile := tt.want
				if dry {
					wantFile = tt.old
				}
				data, err := os.ReadFile(filepath.Join(dir, "f.txt"))
				if (err != nil) != (dry && !tt.exists) || string(data) != wantFile {
					t.Errorf("file = %q, %v; want %q", data, err, wantFile)
				}
				if got := repairCodes(ex.Verdict); !slices.Equal(got, tt.repairs) {
					t.Errorf("repairs = %v, want %v", got, tt.repairs)
				}
				if tt.detail != "" && !strings.HasPrefix(ex.Repairs[0].Detail, tt.detail) {
					t.Errorf("detail %q, want it to start %q", ex.Repairs[0].Detail, tt.detail)
				}
				if got := changedLines(ex.Diff); !slices.Equal(got, tt.diffLines) {
					t.Errorf("diff changes %q, want %q\n%s", got, tt.diffLines, ex.Diff)
				}
				if len(ex.Changes) != 1 {
					t.Fatalf("changes %+v, violations %+v", ex.Changes, ex.Violations)
				}
				if c := ex.Changes[0]; c.SHA256 != workspace.SHA256Hex([]byte(tt.want)) || c.Size != len(tt.want) {
					t.Errorf("change %+v does not describe %q", c, tt.want)
				}
			})
		}
	}
}

// changedLines returns a unified diff's added and removed lines.
func changedLines(diff string) []string {
	var out []string
	for _, l := range strings.Split(diff, "\n") {
		if (strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-")) && !strings.HasPrefix(l, "+++") && !strings.HasPrefix(l, "---") {
			out = append(out, l)
		}
	}
	return out
}

// TestEditKeepsLineEndings: an edit changes only its span, whose lines keep
// their own endings; the BOM and the lines around stay byte for byte.
func TestEditKeepsLineEndings(t *testing.T) {
	tests := []struct {
		name, file, old, new, want string
	}{
		{"CRLF and BOM", "\uFEFFa\r\nb\r\nc\r\n", "b\n", "B\nB2\n", "\uFEFFa\r\nB\r\nB2\r\nc\r\n"},
		{"mixed line by line", "a\r\nb\nc\r\nd\n", "a\nb\nc\n", "A\nB\nC\n", "A\r\nB\nC\r\nd\n"},
		{"new text with CRLF in an LF file", "a\nb\n", "a\r\n", "A\r\n", "A\nb\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, dir := newWorkspaceGuard(t)
			writeFile(t, dir, "f.txt", tt.file)
			ex := runExecute(t, g, "edit", map[string]any{"path": "f.txt", "old_text": tt.old, "new_text": tt.new}, false)
			if got := readFile(t, dir, "f.txt"); got != tt.want || !ex.Applied {
				t.Errorf("file = %q (applied %v), want %q", got, ex.Applied, tt.want)
			}
		})
	}
}
