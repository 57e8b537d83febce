//go:build unix

package guard

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/workspace/workspacetest"
)

// searchTree is lookTree with contents to search: text, a binary file, a
// hard link, and the canary outside.
func searchTree(t *testing.T) (*Guard, string) {
	t.Helper()
	g, dir := lookTree(t)
	files := map[string]string{
		"src/main.go":        "package main\n\nfunc main() {\n\tprintln(\"Hello\")\n}\n",
		"src/util/u.go":      "package util\n\n// Hello says hello.\nfunc Hello() string { return \"hello\" }\n",
		"src/util/u_test.go": "package util\n\nfunc TestHello(t *testing.T) {}\n",
		"bin/blob.dat":       "hello\x00world",
		"notes.txt":          "one\ntwo hello\nthree\nfour\nfive hello\r\nsix\n",
	}
	workspacetest.WriteFiles(t, dir, files)
	if err := os.WriteFile(filepath.Join(dir, "hl-a.txt"), []byte("hello hard link\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(dir, "hl-a.txt"), filepath.Join(dir, "src", "hl-b.txt")); err != nil {
		t.Fatal(err)
	}
	return g, dir
}

func hitLines(s *Searched) []string {
	var out []string
	for _, m := range s.Matches {
		out = append(out, fmt.Sprintf("%s:%d:%d", m.Path, m.Line, m.Column))
	}
	for _, f := range s.Files {
		out = append(out, fmt.Sprintf("%s=%d", f.Path, f.Count))
	}
	return out
}

func TestSearchFiles(t *testing.T) {
	g, dir := searchTree(t)
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		req   SearchRequest
		want  []string
		codes []string
		text  []string
	}{
		{name: "regex, sorted by path then line", req: SearchRequest{Pattern: `func \w+\(`},
			want: []string{"src/main.go:3:1", "src/util/u.go:4:1", "src/util/u_test.go:3:1"}},
		{name: "case-sensitive by default", req: SearchRequest{Pattern: "Hello"},
			want: []string{"src/main.go:4:11", "src/util/u.go:3:4", "src/util/u.go:4:6", "src/util/u_test.go:3:10"}},
		{name: "ignore case, binary skipped", req: SearchRequest{Pattern: "HELLO", IgnoreCase: true, Include: "*.txt"},
			want: []string{"notes.txt:2:5", "notes.txt:5:6"}, text: []string{"notes.txt:5: five hello\n", "searched 1 file)"}},
		{name: "smart case: lower case matches any case", req: SearchRequest{Pattern: "hello", SmartCase: true, Path: "src/util"},
			want: []string{"src/util/u.go:3:4", "src/util/u.go:4:6", "src/util/u_test.go:3:10"}},
		{name: "smart case: an upper-case letter is kept", req: SearchRequest{Pattern: `\bHello\(`, SmartCase: true},
			want: []string{"src/util/u.go:4:6"}},
		{name: "literal", req: SearchRequest{Pattern: "Hello()", Literal: true}, want: []string{"src/util/u.go:4:6"}},
		{name: "literal ignoring case", req: SearchRequest{Pattern: "HELLO()", Literal: true, IgnoreCase: true}, want: []string{"src/util/u.go:4:6"}},
		{name: "anchored per line", req: SearchRequest{Pattern: "^func"}, want: []string{"src/main.go:3:1", "src/util/u.go:4:1", "src/util/u_test.go:3:1"}},
		{name: "context merges and separates", req: SearchRequest{Pattern: "hello", Path: ".", Include: "notes.txt", Context: 1},
			want: []string{"notes.txt:2:5", "notes.txt:5:6"},
			text: []string{"notes.txt-1- one\nnotes.txt:2: two hello\nnotes.txt-3- three\nnotes.txt-4- four\nnotes.txt:5: five hello\nnotes.txt-6- six\n2 matching lines in 1 file"}},
		{name: "before only", req: SearchRequest{Pattern: "five", Include: "*.txt", Before: 2},
			text: []string{"notes.txt-3- three\nnotes.txt-4- four\nnotes.txt:5: five hello\n1 matching line"}},
		{name: "include by path, exclude", req: SearchRequest{Pattern: "package", Include: "src/**/*.go", Exclude: []string{"*_test.go"}},
			want: []string{"src/main.go:1:1", "src/util/u.go:1:1"}},
		{name: "files with matches", req: SearchRequest{Pattern: "hello", IgnoreCase: true, OutputMode: SearchFiles},
			want: []string{"notes.txt=1", "src/main.go=1", "src/util/u.go=1", "src/util/u_test.go=1"},
			text: []string{"notes.txt\nsrc/main.go\n", "4 files matching", "1 binary skipped"}},
		{name: "count", req: SearchRequest{Pattern: "hello", IgnoreCase: true, OutputMode: SearchCount, Path: "src"},
			want: []string{"src/main.go=1", "src/util/u.go=2", "src/util/u_test.go=1"}, text: []string{"src/util/u.go:2\n"}},
		{name: "bounded, honest count", req: SearchRequest{Pattern: "e", MaxResults: 2},
			want: []string{"notes.txt:1:3", "notes.txt:2:6"}, text: []string{"more matching lines not shown (max_results 2)"}},
		{name: "gitignore", req: SearchRequest{Pattern: "log", Gitignore: true}, want: []string{".gitignore:1:3"}},
		{name: "no match", req: SearchRequest{Pattern: "zebra"}, text: []string{`No matches for "zebra" in the workspace (searched`}},
		{name: "absolute path inside", req: SearchRequest{Pattern: "package", Path: dir + "/src/util"},
			want: []string{"src/util/u.go:1:1", "src/util/u_test.go:1:1"}},
		{name: "denied, ignored and outside never hit", req: SearchRequest{Pattern: "secret|canary|private/", Literal: false}, text: []string{"No matches"}},
		{name: "bad regex names the position", req: SearchRequest{Pattern: "func (a"}, codes: []string{repair.CodeInvalidValue}},
		{name: "look-around", req: SearchRequest{Pattern: "a(?=b)"}, codes: []string{repair.CodeInvalidValue}},
		{name: "huge repetition", req: SearchRequest{Pattern: "(a{1000}){1000}"}, codes: []string{repair.CodeInvalidValue}},
		{name: "empty pattern", req: SearchRequest{Pattern: ""}, codes: []string{repair.CodeMissingRequired}},
		{name: "bad include", req: SearchRequest{Pattern: "x", Include: "[a-"}, codes: []string{repair.CodeInvalidValue}},
		{name: "bad mode", req: SearchRequest{Pattern: "x", OutputMode: "lines"}, codes: []string{repair.CodeInvalidValue}},
		{name: "context out of range", req: SearchRequest{Pattern: "x", Context: 99}, codes: []string{repair.CodeInvalidValue}},
		{name: "escape", req: SearchRequest{Pattern: "canary", Path: "../"}, codes: []string{repair.CodeOutsideWorkspace}},
		{name: "absolute outside", req: SearchRequest{Pattern: "root", Path: "/etc"}, codes: []string{repair.CodeOutsideWorkspace}},
		{name: "link out", req: SearchRequest{Pattern: "canary", Path: "out"}, codes: []string{repair.CodeDeniedPath}},
		{name: "relative link out", req: SearchRequest{Pattern: "canary", Path: "rel/"}, codes: []string{repair.CodeDeniedPath}},
		{name: "link to a denied folder", req: SearchRequest{Pattern: "secret", Path: "gitlink"}, codes: []string{repair.CodeDeniedPath}},
		{name: "denied folder, another case", req: SearchRequest{Pattern: "secret", Path: ".GiT"}, codes: []string{repair.CodeDeniedPath}},
		{name: "ignore file's folder", req: SearchRequest{Pattern: "secret", Path: "private"}, codes: []string{repair.CodeDeniedPath}},
		{name: "dot-dot back in", req: SearchRequest{Pattern: "package", Path: "../" + filepath.Base(dir) + "/src"}, codes: []string{repair.CodeOutsideWorkspace}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.req.SessionID = "s-" + c.name
			lk, err := g.SearchFiles(ctx, c.req)
			if err != nil {
				t.Fatal(err)
			}
			if got := violationCodes(lk.Verdict); !slices.Equal(got, c.codes) {
				t.Fatalf("violations %v, want %v (%s)", got, c.codes, lk.Feedback)
			}
			if c.codes != nil {
				if lk.Result != nil || lk.Mistakes.Consecutive != 1 || lk.Feedback == "" {
					t.Fatalf("refusal: result %v, mistakes %+v, feedback %q", lk.Result, lk.Mistakes, lk.Feedback)
				}
				return
			}
			s := lk.Result.(*Searched)
			if got := hitLines(s); c.want != nil && !slices.Equal(got, c.want) {
				t.Fatalf("hits:\n got %q\nwant %q\n%s", got, c.want, s.Text())
			}
			text := s.Text()
			for _, w := range c.text {
				if !strings.Contains(text, w) {
					t.Errorf("text lacks %q:\n%s", w, text)
				}
			}
			for _, bad := range []string{"canary", "secret", "hl-a", "hl-b", "blob.dat", "private/"} {
				if strings.Contains(text, bad) && !strings.Contains(text, `"`+c.req.Pattern+`"`) {
					t.Errorf("text shows %q:\n%s", bad, text)
				}
			}
		})
	}
}

// TestSearchPatternFeedback: a bad pattern says what and where, in RE2's
// terms, and how to search for the text itself.
func TestSearchPatternFeedback(t *testing.T) {
	for _, c := range []struct{ pat, want string }{
		{"func (a", `missing closing ) at position 6 ("(a")`},
		{"a(?=b)", "look-around is not supported"},
		{`(a)\1`, `back-references (\1) are not supported`},
		{"x{1001}", "a repetition count is at most 1000"},
		{"[z-a]", `invalid character class range at position 2 ("z-a")`},
		{"(a{1000}){1000}", "repetition count"},
	} {
		_, msg := compileSearchPattern(c.pat, false, false, false)
		if !strings.Contains(msg, c.want) || !strings.Contains(msg, "set literal to true") {
			t.Errorf("%q: %s", c.pat, msg)
		}
	}
	if p, msg := compileSearchPattern("func (a", true, false, false); msg != "" || !p.exact {
		t.Fatalf("literal: %s", msg)
	}
}

// TestSearchCallAliases calls search_files as other agents name it.
func TestSearchCallAliases(t *testing.T) {
	g, _ := searchTree(t)
	ctx := context.Background()
	for _, c := range []struct{ tool, args, first string }{
		{"search_files", `{"path":"src","regex":"Hello\\(","file_pattern":"*.go"}`, "src/util/u.go:4"},                                 // Roo
		{"Grep", `{"pattern":"hello","path":"src","glob":"*.go","-i":true,"-n":true,"-C":1,"output_mode":"content"}`, "src/main.go:4"}, // Claude Code
		{"Grep", `{"pattern":"hello","-i":true,"output_mode":"files_with_matches","head_limit":1}`, "notes.txt:0"},
		{"search_file_content", `{"pattern":"TestHello","path":"src","include":"*_test.go"}`, "src/util/u_test.go:3"}, // Gemini CLI
		{"grep", `{"query":"five","includes":"*.txt","-A":1}`, "notes.txt:5"},
	} {
		lk, err := g.LookCall(ctx, ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: "alias", Call: repair.Call{Name: c.tool, Form: repair.FormText, Text: c.args}}})
		if err != nil {
			t.Fatal(err)
		}
		if !lk.OK() {
			t.Fatalf("%s %s: %s", c.tool, c.args, lk.Feedback)
		}
		s := lk.Result.(*Searched)
		var first string
		if len(s.Matches) > 0 {
			first = fmt.Sprintf("%s:%d", s.Matches[0].Path, s.Matches[0].Line)
		} else if len(s.Files) > 0 {
			first = s.Files[0].Path + ":0"
		}
		if first != c.first {
			t.Fatalf("%s %s: first %q, want %q\n%s", c.tool, c.args, first, c.first, s.Text())
		}
		if g.ActionOf(lk.Tool) != ActionLook {
			t.Fatalf("%s: not a look", c.tool)
		}
	}
}

// TestSearchBounds: the server's bounds on files and bytes cut a search,
// which says so.
func TestSearchBounds(t *testing.T) {
	for _, c := range []struct {
		limits SearchLimits
		cut    string
	}{
		{SearchLimits{MaxFiles: 2}, "files"},
		{SearchLimits{MaxBytes: 40}, "bytes"},
		{SearchLimits{MaxResults: 1}, ""},
	} {
		g, dir := newWorkspaceGuard(t)
		g.search = c.limits.orDefaults()
		for i := range 5 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)), []byte("alpha\nbeta alpha\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		lk, err := g.SearchFiles(context.Background(), SearchRequest{RequestContext: RequestContext{SessionID: "b"}, Pattern: "alpha", MaxResults: 50})
		if err != nil || !lk.OK() {
			t.Fatalf("%v %v", err, lk.Feedback)
		}
		s := lk.Result.(*Searched)
		if s.Cut != c.cut || s.Partial != (c.cut != "") {
			t.Fatalf("%+v: cut %q partial %v", c.limits, s.Cut, s.Partial)
		}
		if c.cut != "" && (s.FilesSearched != 2 || !strings.Contains(s.Text(), "stopped early")) {
			t.Fatalf("%+v: %d files\n%s", c.limits, s.FilesSearched, s.Text())
		}
		if c.cut == "" && (len(s.Matches) != 1 || s.Omitted != 9 || !strings.Contains(s.Text(), "9 more matching lines not shown (max_results 1)")) {
			t.Fatalf("max results: %s", s.Text())
		}
	}
}

// TestSearchLongLineAndEncoding: a long line is cut around its match, and
// bytes that are not UTF-8 never reach the answer.
func TestSearchLongLineAndEncoding(t *testing.T) {
	g, dir := newWorkspaceGuard(t)
	long := strings.Repeat("x", 5000) + "needle" + strings.Repeat("y", 5000)
	if err := os.WriteFile(filepath.Join(dir, "min.js"), []byte(long+"\n\xff\xfe needle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lk, err := g.SearchFiles(context.Background(), SearchRequest{RequestContext: RequestContext{SessionID: "l"}, Pattern: "needle"})
	if err != nil || !lk.OK() {
		t.Fatal(err)
	}
	s := lk.Result.(*Searched)
	if len(s.Matches) != 2 || !strings.Contains(s.Matches[0].Text, "needle") || len(s.Matches[0].Text) > maxSearchLineBytes+8 ||
		s.Matches[0].Column != 5001 || s.Matches[1].Text != "\uFFFD needle" {
		t.Fatalf("%+v", s.Matches)
	}
}

// TestSearchFolderSwappedForLink swaps a folder for a link out of the
// workspace, over and over, while searches run: no hit ever comes from
// outside.
func TestSearchFolderSwappedForLink(t *testing.T) {
	g, dir := searchTree(t)
	out := filepath.Join(filepath.Dir(dir), filepath.Base(dir)+"-outside")
	d := filepath.Join(dir, "swap")
	var wg sync.WaitGroup
	wg.Add(1)
	stop := make(chan struct{})
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			_ = os.RemoveAll(d)
			if i%2 == 0 {
				_ = os.MkdirAll(d, 0o755)
				_ = os.WriteFile(filepath.Join(d, "in.txt"), []byte("canary-in\n"), 0o644)
			} else {
				_ = os.Symlink(out, d)
			}
		}
	}()
	inside := 0
	for range 200 {
		lk, err := g.SearchFiles(context.Background(), SearchRequest{RequestContext: RequestContext{SessionID: "race"}, Pattern: "canary"})
		if err != nil {
			t.Fatal(err)
		}
		if !lk.OK() {
			continue // the folder was swapped under the walk's feet: refused, not followed
		}
		for _, m := range lk.Result.(*Searched).Matches {
			if m.Text != "canary-in" {
				t.Fatalf("hit from outside: %+v", m)
			}
			inside++
		}
	}
	close(stop)
	wg.Wait()
	t.Logf("%d hits inside", inside)
}

// FuzzSearchPattern: any pattern, in any mode, compiles or is refused
// with a message for the model; matching it never panics, and every hit
// is a line that the pattern matches.
func FuzzSearchPattern(f *testing.F) {
	for _, s := range []string{"func \\w+\\(", "(a", "a{1001}", "(a{1000}){1000}", "((((((((((a))))))))))*", "(?i)ſ", "k", "[[:alpha:]]+", "\\", "a(?=b)", "(?P<n>x)\\1", "^$", "x*", "\\pL", "\\p{Greek}+", "a\nb", "(?s).", "[^a]"} {
		f.Add(s, "a func Main(\n\nKelvin \u212a ſ x\x00y\r\nend", false, false)
	}
	f.Fuzz(func(t *testing.T, pat, text string, literal, fold bool) {
		p, msg := compileSearchPattern(pat, literal, fold, !fold)
		if msg != "" {
			if p != nil || !strings.HasPrefix(msg, "pattern") {
				t.Fatalf("refusal %q kept a pattern or does not name it", msg)
			}
			return
		}
		data := []byte(text)
		m := &matcher{p: p}
		prev := -1
		m.each(data, func(lm lineMatch) bool {
			line := data[lm.start:lm.end]
			if lm.start <= prev || lm.start > lm.end || lm.col < 0 || lm.col > len(line) || !p.re.Match(line) {
				t.Fatalf("pattern %q: bad hit %+v in %q", pat, lm, text)
			}
			prev = lm.start
			return true
		})
		// Every line the pattern matches is found; a final newline ends the
		// last line, it starts no other.
		want := 0
		var lines []string
		if text != "" {
			lines = strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		}
		for _, line := range lines {
			if p.re.MatchString(line) {
				want++
			}
		}
		got := 0
		m.each(data, func(lineMatch) bool { got++; return true })
		if got != want {
			t.Fatalf("pattern %q literal %v fold %v: %d hits, want %d in %q", pat, literal, fold, got, want, text)
		}
	})
}

// TestLowerASCII: the eight-bytes-at-a-time folding agrees with the table
// on every byte at every alignment, and tells ASCII from the rest.
func TestLowerASCII(t *testing.T) {
	src := make([]byte, 0, 300)
	for i := range 256 {
		src = append(src, byte(i))
	}
	src = append(src, "HELLO World@[`{"...)
	for off := range 9 {
		s := src[off:]
		got, want := make([]byte, len(s)), make([]byte, len(s))
		for i, c := range s {
			want[i] = lowerTable[c]
		}
		if lowerASCII(got, s) || string(got) != string(want) {
			t.Fatalf("offset %d: %q", off, got)
		}
	}
	s := []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZ@[`{ az")
	got := make([]byte, len(s))
	if !lowerASCII(got, s) || string(got) != "abcdefghijklmnopqrstuvwxyz@[`{ az" {
		t.Fatalf("%q", got)
	}
}
