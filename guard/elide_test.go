package guard

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/repair"
)

func hexSum(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func fields(els []Elision) []string {
	var out []string
	for _, e := range els {
		out = append(out, e.Field)
	}
	return out
}

// TestElideRules: which values an execute answer leaves out, by rule.
func TestElideRules(t *testing.T) {
	big := strings.Repeat("z", LargeValueBytes+1)
	tests := []struct {
		name     string
		tool     string
		args     map[string]any
		diff     string
		budget   int
		want     []string // elided fields, in order
		keep     map[string]any
		wantDiff bool // diff elided
	}{
		{
			name: "write content, any size",
			tool: "write_to_file", args: map[string]any{"path": "a.txt", "content": "x"},
			want: []string{"content"}, keep: map[string]any{"path": "a.txt"},
		},
		{
			name: "empty content stays",
			tool: "write_to_file", args: map[string]any{"path": "a.txt", "content": ""},
			keep: map[string]any{"content": ""},
		},
		{
			name: "edit text at any depth, empty new text stays",
			tool: "multi_edit", args: map[string]any{"path": "a", "edits": []any{
				map[string]any{"old_text": "o", "new_text": "n"}, map[string]any{"old_text": "p", "new_text": ""}}},
			want: []string{"edits/0/new_text", "edits/0/old_text", "edits/1/old_text"},
		},
		{
			name: "todo content is not file content",
			tool: "todo_write", args: map[string]any{"todos": []any{map[string]any{"id": "1", "content": "c", "status": "pending"}}},
		},
		{
			name: "large values of any parameter, unknown tool too",
			tool: "", args: map[string]any{"note": big, "tags": []any{big, "s"}},
			want: []string{"note", "tags/0"},
		},
		{
			name: "a diff over the budget",
			tool: "write_to_file", args: map[string]any{"path": "a.txt", "content": "x"},
			diff: strings.Repeat("+line\n", 1000), budget: 2000,
			want: []string{"content"}, wantDiff: true,
		},
		{
			name: "a diff over MaxDiffBytes, without a budget",
			tool: "write_to_file", args: map[string]any{"path": "a.txt", "content": "x"},
			diff: strings.Repeat("+", MaxDiffBytes+1),
			want: []string{"content"}, wantDiff: true,
		},
		{
			name: "a diff within the budget stays",
			tool: "write_to_file", args: map[string]any{"path": "a.txt", "content": "x"},
			diff: "+x\n", budget: 2000,
			want: []string{"content"},
		},
		{
			name: "whole parameters when the rest is not enough",
			tool: "multi_edit", args: map[string]any{"path": "a", "edits": manyEdits(40)},
			budget: 4000,
			want:   []string{"edits"}, keep: map[string]any{"path": "a"},
		},
	}
	reg, err := repair.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := answer{tool: reg.Tool(tt.tool), args: tt.args, diff: tt.diff}
			s, err := a.shape(tt.budget, true)
			if err != nil {
				t.Fatal(err)
			}
			if got := fields(s.elided); !slices.Equal(got, tt.want) {
				t.Errorf("elided %v, want %v", got, tt.want)
			}
			for _, e := range s.elided {
				v := argPath(tt.args, e.Field)
				if raw, err := repair.EncodeJSON(v); err == nil && !isString(v) {
					v = string(raw)
				}
				if e.Size != len(v.(string)) || e.SHA256 != hexSum(v.(string)) || argPath(s.args, e.Field) != e.Marker() {
					t.Errorf("%s: %+v does not stand for its value", e.Field, e)
				}
			}
			for k, v := range tt.keep {
				if fmt.Sprint(s.args[k]) != fmt.Sprint(v) {
					t.Errorf("%s = %v, want it kept", k, s.args[k])
				}
			}
			if (s.diffElided != nil) != tt.wantDiff || tt.wantDiff && (s.diff != "" || s.diffElided.SHA256 != hexSum(tt.diff) || s.diffElided.Size != len(tt.diff)) {
				t.Errorf("diff %q elided %+v", s.diff, s.diffElided)
			}
			if tt.budget > 0 && s.size > tt.budget {
				t.Errorf("estimated %d bytes over the budget %d", s.size, tt.budget)
			}
			if fmt.Sprint(tt.args) == fmt.Sprint(s.args) && len(tt.want) > 0 {
				t.Error("the verdict's own arguments were changed")
			}
		})
	}
}

func manyEdits(n int) []any {
	var out []any
	for i := range n {
		out = append(out, map[string]any{"old_text": fmt.Sprint("old ", i), "new_text": fmt.Sprint("new ", i)})
	}
	return out
}

func isString(v any) bool { _, ok := v.(string); return ok }

func argPath(v any, path string) any {
	for _, k := range strings.Split(path, "/") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			var i int
			fmt.Sscan(k, &i)
			v = x[i]
		}
	}
	return v
}

// TestResponseTooLarge: a call whose answer cannot fit even with every
// value elided is refused before anything is written.
func TestResponseTooLarge(t *testing.T) {
	var patch strings.Builder
	patch.WriteString("*** Begin Patch\n")
	for i := range 300 {
		fmt.Fprintf(&patch, "*** Add File: dir/file-%04d.txt\n+x\n", i)
	}
	patch.WriteString("*** End Patch")
	for _, tt := range []struct {
		name    string
		max     int
		refused bool
	}{
		{"within the limit", 1 << 20, false},
		{"over the limit", 64 << 10, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g, dir := newWorkspaceGuard(t, func(o *Options) { o.MaxResponseBytes = tt.max })
			ex, err := g.ExecuteEdit(context.Background(), ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: "s",
				Call: repair.Call{Name: "apply_patch", Form: repair.FormParams, Params: map[string]string{"patch": patch.String()}}}})
			if err != nil {
				t.Fatal(err)
			}
			_, statErr := os.Stat(filepath.Join(dir, "dir", "file-0000.txt"))
			if tt.refused != ex.Has(CodeResponseTooLarge) || tt.refused != os.IsNotExist(statErr) || tt.refused == ex.Applied {
				t.Fatalf("refused=%v applied=%v file: %v; violations %v", ex.Has(CodeResponseTooLarge), ex.Applied, statErr, ex.Violations)
			}
			if tt.refused && (len(ex.Changes) != 0 || ex.Diff != "") {
				t.Errorf("a refused call still reports %d changes", len(ex.Changes))
			}
		})
	}
}

// TestJSONSizeBounds: the estimate is never below the encoding's length.
func TestJSONSizeBounds(t *testing.T) {
	for _, v := range []any{
		"", "plain", "quote \" backslash \\ newline \n tab \t nul \x00", "中文 and é", "\u2028\u2029", "bad \xff\xfe bytes",
		"<html> & </html>", json.Number("1e308"), true, false, nil, 3.5,
		map[string]any{"k\n": []any{"a", map[string]any{}, []any{}, json.Number("-12")}},
	} {
		raw, err := repair.EncodeJSON(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := jsonSize(v); got < len(raw) {
			t.Errorf("jsonSize(%q) = %d, encoding is %d bytes: %s", v, got, len(raw), raw)
		}
	}
}
