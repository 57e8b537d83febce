package guard

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/repair/contentfix"
	"github.com/toolguard/toolguard/workspace"
)

// TestReadFile reads files through the ReadFile request: the exact text of
// the range, the whole file's hash and counts, and the refusals as verdicts.
func TestReadFile(t *testing.T) {
	files := map[string]string{
		"a.py":      "one\ntwo\nthree\nfour\n",
		"crlf.txt":  "\uFEFFalpha\r\nbeta\r\n",
		"nofinal":   "x\ny",
		"empty.txt": "",
		"bin.dat":   "PK\x03\x04\x00\x00rest",
		"latin1":    "caf\xe9\n",
		".env":      "SECRET=1\n",
	}
	tests := []struct {
		name       string
		req        ReadRequest
		want       string
		start, end int
		total      int
		truncated  bool
		codes      []string
	}{
		{name: "whole file", req: ReadRequest{Path: "a.py"}, want: "one\ntwo\nthree\nfour\n", start: 1, end: 4, total: 4},
		{name: "range", req: ReadRequest{Path: "a.py", Offset: 2, Limit: 2}, want: "two\nthree\n", start: 2, end: 3, total: 4},
		{name: "limit past the end", req: ReadRequest{Path: "a.py", Offset: 4, Limit: 10}, want: "four\n", start: 4, end: 4, total: 4},
		{name: "numbered", req: ReadRequest{Path: "a.py", Offset: 3, LineNumbers: true}, want: "   3 | three\n   4 | four\n", start: 3, end: 4, total: 4},
		{name: "numbered CRLF drops CR and BOM", req: ReadRequest{Path: "crlf.txt", LineNumbers: true}, want: "   1 | alpha\n   2 | beta\n", start: 1, end: 2, total: 2},
		{name: "raw CRLF kept byte for byte", req: ReadRequest{Path: "crlf.txt", Offset: 2}, want: "beta\r\n", start: 2, end: 2, total: 2},
		{name: "last line without newline", req: ReadRequest{Path: "nofinal", Offset: 2}, want: "y", start: 2, end: 2, total: 2},
		{name: "empty file", req: ReadRequest{Path: "empty.txt"}, want: "", start: 1, end: 0, total: 0},
		{name: "absolute path inside", req: ReadRequest{Path: "{dir}/a.py", Limit: 1}, want: "one\n", start: 1, end: 1, total: 4},
		{name: "alias of the path is no field here: unknown file", req: ReadRequest{Path: "nope.py"}, codes: []string{CodeFileNotFound}},
		{name: "offset past the end", req: ReadRequest{Path: "a.py", Offset: 9}, codes: []string{repair.CodeInvalidValue}},
		{name: "escape", req: ReadRequest{Path: "../etc/passwd"}, codes: []string{repair.CodeOutsideWorkspace}},
		{name: "absolute elsewhere", req: ReadRequest{Path: "/etc/passwd"}, codes: []string{repair.CodeOutsideWorkspace}},
		{name: "denied", req: ReadRequest{Path: ".git/config"}, codes: []string{repair.CodeDeniedPath}},
		{name: "NUL byte", req: ReadRequest{Path: "bin.dat"}, codes: []string{CodeBinaryFile}},
		{name: "invalid UTF-8", req: ReadRequest{Path: "latin1"}, codes: []string{CodeBinaryFile}},
		{name: "directory", req: ReadRequest{Path: "sub"}, codes: []string{CodeNotRegular}},
		{name: "negative offset", req: ReadRequest{Path: "a.py", Offset: -1}, codes: []string{repair.CodeInvalidValue}},
		{name: "head", req: ReadRequest{Path: "a.py", Head: 2}, want: "one\ntwo\n", start: 1, end: 2, total: 4},
		{name: "head past the end", req: ReadRequest{Path: "a.py", Head: 9}, want: "one\ntwo\nthree\nfour\n", start: 1, end: 4, total: 4},
		{name: "tail", req: ReadRequest{Path: "a.py", Tail: 2}, want: "three\nfour\n", start: 3, end: 4, total: 4},
		{name: "tail numbered", req: ReadRequest{Path: "a.py", Tail: 1, LineNumbers: true}, want: "   4 | four\n", start: 4, end: 4, total: 4},
		{name: "tail longer than the file", req: ReadRequest{Path: "nofinal", Tail: 5}, want: "x\ny", start: 1, end: 2, total: 2},
		{name: "tail of an empty file", req: ReadRequest{Path: "empty.txt", Tail: 3}, want: "", start: 1, end: 0, total: 0},
		{name: "head and tail", req: ReadRequest{Path: "a.py", Head: 1, Tail: 1}, codes: []string{repair.CodeInvalidValue}},
		{name: "tail and offset", req: ReadRequest{Path: "a.py", Tail: 1, Offset: 2}, codes: []string{repair.CodeInvalidValue}},
	}
	g, dir := newWorkspaceGuard(t)
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[core]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := tt.req
			req.SessionID = t.Name()
			req.Path = strings.ReplaceAll(req.Path, "{dir}", dir)
			r, err := g.ReadFile(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if got := violationCodes(r.Verdict); !slices.Equal(got, tt.codes) {
				t.Fatalf("violations %v, want %v (feedback %q)", got, tt.codes, r.Feedback)
			}
			if tt.codes != nil {
				if r.Content != "" || r.SHA256 != "" || r.Feedback == "" {
					t.Errorf("refused read: content %q, sha %q, feedback %q", r.Content, r.SHA256, r.Feedback)
				}
				return
			}
			if r.Content != tt.want || r.StartLine != tt.start || r.EndLine != tt.end || r.TotalLines != tt.total || r.Truncated != tt.truncated {
				t.Errorf("got %q lines %d-%d of %d truncated %v, want %q lines %d-%d of %d truncated %v",
					r.Content, r.StartLine, r.EndLine, r.TotalLines, r.Truncated, tt.want, tt.start, tt.end, tt.total, tt.truncated)
			}
			whole := files[filepath.Base(strings.ReplaceAll(tt.req.Path, "{dir}/", ""))]
			if r.Size != int64(len(whole)) || r.SHA256 != workspace.SHA256Hex([]byte(whole)) {
				t.Errorf("size %d sha %s, want the whole file's %d %s", r.Size, r.SHA256, len(whole), workspace.SHA256Hex([]byte(whole)))
			}
		})
	}
}

// TestReadBinarySniff: a NUL byte decides in the first 8 KB only, and a
// character that bound cuts in two is text; bytes that are not UTF-8 decide
// anywhere, since no answer could carry them as text.
func TestReadBinarySniff(t *testing.T) {
	cut := strings.Repeat("a", binarySniffBytes-1) + "é" // 'é' straddles the bound
	tests := []struct {
		name string
		data string
		want string
	}{
		{"text", "plain\n", ""},
		{"character cut by the bound", cut + "\n", ""},
		{"NUL after the bound", strings.Repeat("a", binarySniffBytes) + "\x00", ""},
		{"NUL", "a\x00b", "binary (a NUL byte at offset 1)"},
		{"invalid byte", "ab\xff", "not UTF-8 text (an invalid byte sequence at offset 2)"},
		{"invalid byte after the bound", strings.Repeat("a", binarySniffBytes+1) + "\xc3(", fmt.Sprintf("not UTF-8 text (an invalid byte sequence at offset %d)", binarySniffBytes+1)},
		{"UTF-16 with BOM", "\xff\xfea\x00", "binary (a NUL byte at offset 3)"},
	}
	for _, tt := range tests {
		if got := binaryReason([]byte(tt.data)); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestReadTruncates: past the byte bound the text stops after the last
// whole line; a first line longer than the bound is cut at a character.
func TestReadTruncates(t *testing.T) {
	tests := []struct {
		name      string
		data      string
		max       int
		want      string
		end       int
		truncated bool
	}{
		{"fits", "ab\ncd\n", 6, "ab\ncd\n", 2, false},
		{"stops at a line", strings.Repeat(strings.Repeat("a", 29)+"\n", 3), 65, strings.Repeat(strings.Repeat("a", 29)+"\n", 2), 2, true},
		{"first line too long", strings.Repeat("é", 40) + "\nx\n", 65, strings.Repeat("é", 32), 1, true},
		{"below the least bound", strings.Repeat("x", 70) + "\n", 2, strings.Repeat("x", minReadBytes), 1, true},
	}
	for _, tt := range tests {
		s, err := selectLines([]byte(tt.data), lineRange{}, tt.max, false)
		if err != nil {
			t.Fatal(err)
		}
		if s.text != tt.want || s.end != tt.end || s.truncated != tt.truncated {
			t.Errorf("%s: got %q to line %d truncated %v, want %q to %d %v", tt.name, s.text, s.end, s.truncated, tt.want, tt.end, tt.truncated)
		}
	}
}

// TestReadNumberedRoundTrip: numbered lines copied into an edit's old text
// are the read-tool shape the edit path strips, whatever the width.
func TestReadNumberedRoundTrip(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 12000; i++ {
		fmt.Fprintf(&b, "line %d | with a pipe\n", i)
	}
	data := b.String()
	for _, rng := range [][2]int{{1, 1}, {9, 3}, {998, 5}, {11990, 0}} {
		s, err := selectLines([]byte(data), lineRange{offset: rng[0], limit: rng[1]}, 1<<20, true)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := selectLines([]byte(data), lineRange{offset: rng[0], limit: rng[1]}, 1<<20, false)
		got, ok := contentfix.StripLineNumbers(s.text)
		if !ok || got != raw.text {
			t.Errorf("range %v: stripped %v %q, want %q", rng, ok, got, raw.text)
		}
	}
}

// TestReadThenEdit: the hash of a read is the edit's expected hash, and a
// read's numbered lines pasted as old text apply.
func TestReadThenEdit(t *testing.T) {
	g, dir := newWorkspaceGuard(t)
	if err := os.WriteFile(filepath.Join(dir, "m.go"), []byte("package m\n\nfunc f() int {\n\treturn 1\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r, err := g.ReadFile(ctx, ReadRequest{RequestContext: RequestContext{SessionID: "s"}, Path: "m.go", Offset: 3, Limit: 3, LineNumbers: true})
	if err != nil || !r.OK() {
		t.Fatalf("read: %v %+v", err, r)
	}
	args, _ := repair.EncodeJSON(map[string]any{"path": "m.go", "old_text": r.Content, "new_text": "func f() int {\n\treturn 2\n}\n"})
	ex, err := g.ExecuteEdit(ctx, ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: "s",
		Call: repair.Call{Name: "edit", Form: repair.FormText, Text: string(args)}}, ExpectedSHA256: r.SHA256})
	if err != nil {
		t.Fatal(err)
	}
	if !ex.OK() || !ex.Applied {
		t.Fatalf("edit not applied: %s", ex.Feedback)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "m.go"))
	if string(got) != "package m\n\nfunc f() int {\n\treturn 2\n}\n" {
		t.Errorf("file %q", got)
	}
}

// TestReadCall: read_file as a model writes it, under other names, is
// repaired like any call and counted in its session.
func TestReadCall(t *testing.T) {
	g, dir := newWorkspaceGuard(t)
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("1\n2\n3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, tool, args string
		want             string
		repairs          []string
		codes            []string
		consecutive      uint32
	}{
		{"Claude Code's Read", "Read", `{"file_path": "a.txt", "offset": 2, "limit": 1}`, "2\n", []string{repair.CodeToolAlias, repair.CodeAliasRenamed}, nil, 0},
		{"string numbers", "read_file", `{"path": "a.txt", "offset": "3"}`, "3\n", []string{repair.CodeTypeCoerced}, nil, 0},
		{"unknown parameter", "read_file", `{"path": "a.txt", "encoding": "utf-8"}`, "", nil, []string{repair.CodeUnexpectedParam}, 1},
		{"escape", "read_file", `{"path": "../x"}`, "", nil, []string{repair.CodeOutsideWorkspace}, 2},
		{"no path", "read_file", `{}`, "", nil, []string{repair.CodeMissingRequired}, 3},
		{"a good read resets", "read_file", `{"path": "a.txt"}`, "1\n2\n3\n", nil, nil, 0},
	}
	for _, tt := range tests {
		r, err := g.ReadCall(context.Background(), ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: "one",
			Call: repair.Call{Name: tt.tool, Form: repair.FormText, Text: tt.args}}})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var repairs []string
		for _, x := range r.Repairs {
			repairs = append(repairs, x.Code)
		}
		if r.Content != tt.want || !slices.Equal(repairs, tt.repairs) || !slices.Equal(violationCodes(r.Verdict), tt.codes) || r.Mistakes.Consecutive != tt.consecutive {
			t.Errorf("%s: got %q repairs %v violations %v mistakes %d, want %q %v %v %d", tt.name, r.Content, repairs,
				violationCodes(r.Verdict), r.Mistakes.Consecutive, tt.want, tt.repairs, tt.codes, tt.consecutive)
		}
	}
	if _, err := g.ReadCall(context.Background(), ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: "one",
		Call: repair.Call{Name: "write_to_file", Form: repair.FormText, Text: `{"path":"a.txt","content":""}`}}}); err == nil {
		t.Error("a write sent to ReadCall was no error")
	}
}

// FuzzSelectLines: a selection is the file's own bytes, in order, within
// the bound; the whole file selected unbounded is the file.
func FuzzSelectLines(f *testing.F) {
	f.Add([]byte("a\nb\r\nc"), 2, 0, 1, 4, false)
	f.Add([]byte("\uFEFFx\n\ny\n"), 1, 2, 0, 100, true)
	f.Add([]byte("héllo wörld\n"), 1, 3, 1, 3, false)
	f.Fuzz(func(t *testing.T, data []byte, offset, column, limit, maxBytes int, numbered bool) {
		if offset < 0 || limit < 0 || column < 0 || maxBytes < 1 || offset > 1<<20 || limit > 1<<20 || column > 1<<20 {
			return
		}
		whole, err := selectLines(data, lineRange{}, len(data)+1, false)
		if err != nil || whole.text != string(data) || whole.truncated {
			t.Fatalf("whole file: %q %v, want %q", whole.text, err, data)
		}
		s, err := selectLines(data, lineRange{offset: offset, column: column, limit: limit}, maxBytes, numbered)
		if err != nil {
			if max(offset, 1) <= whole.total && column <= 1 {
				t.Fatalf("offset %d of %d lines refused: %v", offset, whole.total, err)
			}
			return
		}
		if len(s.text) > max(maxBytes, minReadBytes) || s.end > s.total || (limit > 0 && s.end-s.start+1 > limit) {
			t.Fatalf("selection %+v breaks its bounds (max %d, limit %d)", s, maxBytes, limit)
		}
		if !numbered && !strings.Contains(string(data), s.text) {
			t.Fatalf("selection %q is not the file's bytes", s.text)
		}
	})
}
