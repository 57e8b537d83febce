package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalCommand: files and stdin are read, --json prints the summary for
// machines, and a bad command line exits 2. Plain calls are judged against
// the built-in tools (write's alias "Write" resolves to write_to_file).
func TestEvalCommand(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "calls.jsonl")
	lines := `{"tool": "write_to_file", "arguments": {"path": "a.txt", "content": "x"}, "model": "m"}` + "\n" +
		`{"tool": "write_to_file", "arguments": "{'path': 'a.txt', 'content': 'x'}", "model": "m"}` + "\n" +
		`{"tool": "no_such_tool", "arguments": "{}"}` + "\n"
	if err := os.WriteFile(file, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut strings.Builder
	code := run([]string{"eval", "--json", file, "-"}, strings.NewReader(lines), &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if errOut.Len() != 0 {
		t.Errorf("stderr is not a terminal, yet got %q", errOut.String())
	}
	var s struct {
		Lines        int            `json:"lines"`
		Calls        int            `json:"calls"`
		Classes      map[string]int `json:"classes"`
		Repairs      map[string]int `json:"repairs"`
		UnknownTools map[string]int `json:"unknown_tools"`
	}
	if err := json.Unmarshal([]byte(out.String()), &s); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if s.Lines != 6 || s.Calls != 4 || s.Classes["usable"] != 2 || s.Classes["repaired"] != 2 ||
		s.Repairs["PYTHON_LITERAL"] != 2 || s.UnknownTools["no_such_tool"] != 2 {
		t.Errorf("summary: %s", out.String())
	}

	report := filepath.Join(dir, "report.html")
	if code, _, stderr := runCLI("eval", "--html", report, file); code != 0 {
		t.Fatalf("--html: exit %d: %s", code, stderr)
	}
	if page, err := os.ReadFile(report); err != nil || !strings.Contains(string(page), `<div class="n" id="calls">2</div>`) ||
		!strings.Contains(string(page), "<code>"+file+"</code>") {
		t.Errorf("--html wrote %d bytes (%v): %.300s", len(page), err, page)
	}

	for _, tt := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{"eval", "--html", filepath.Join(dir, "no", "dir", "r.html"), file}, "no such file or directory"},
		{[]string{"eval", "--examples", "-1"}, "--examples must be at least 0"},
		{[]string{"eval", filepath.Join(dir, "missing.jsonl")}, "missing.jsonl: no such file"},
		{[]string{"eval", "--strict=maybe"}, `invalid boolean value "maybe" for -strict`},
	} {
		code, _, stderr := runCLI(tt.args...)
		if code != 2 || !strings.Contains(stderr, tt.wantErr) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, code, stderr, tt.wantErr)
		}
	}
}

// TestEvalProgress: the progress line is redrawn in place, with the share
// of the file when its size is known, and cleared at the end.
func TestEvalProgress(t *testing.T) {
	for _, tt := range []struct {
		size int64
		want string
	}{
		{100 << 20, "\rin.jsonl:  50.0%  50/100 MB  7 calls\r\033[K"},
		{-1, "\r-: 50 MB  7 calls\r\033[K"},
	} {
		var b strings.Builder
		name := "in.jsonl"
		if tt.size < 0 {
			name = "-"
		}
		p := &progress{w: &b, name: name, size: tt.size}
		p.show(50<<20, 7)
		p.show(60<<20, 9) // within the redraw interval: not drawn
		p.done()
		if b.String() != tt.want {
			t.Errorf("size %d: %q, want %q", tt.size, b.String(), tt.want)
		}
	}
	var b strings.Builder
	(&progress{w: &b}).done()
	if b.Len() != 0 {
		t.Errorf("nothing shown, yet done wrote %q", b.String())
	}
}

// TestEvalReportFixture runs docs/eval.md's command for the report of the
// fixture recording (the page docs/img/eval-report.png shows).
func TestEvalReportFixture(t *testing.T) {
	page := filepath.Join(t.TempDir(), "report.html")
	code, stdout, stderr := runCLI("eval", "--html", page, "../../eval/report/testdata/recording.jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<div class="n" id="calls">33</div>`, `<h3 id="code-UNEXPECTED_PARAM">`, "recorded 2026-11-02T10:00:00Z to 2026-11-02T10:26:00Z"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if !strings.Contains(stdout, "calls        33") {
		t.Errorf("stdout: %s", stdout)
	}
}
