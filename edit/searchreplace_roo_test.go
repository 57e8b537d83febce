package edit

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// Roo Code's apply_diff dialect, as its models (Claude, Gemini, GPT,
// DeepSeek, Qwen, Grok through Roo's system prompt) write it.
func TestParseSearchReplaceRoo(t *testing.T) {
	cases := []struct {
		name string
		diff string
		want []Edit
	}{
		{"claude-sonnet: start line and dash header",
			"<<<<<<< SEARCH\n:start_line:1\n-------\ndef calculate_total(items):\n    total = 0\n=======\ndef calculate_sum(items):\n    sum = 0\n>>>>>>> REPLACE\n",
			[]Edit{{OldText: "def calculate_total(items):\n    total = 0\n", NewText: "def calculate_sum(items):\n    sum = 0\n", StartLine: 1}}},
		{"gemini-2.5-pro: two blocks, each with its start line",
			"<<<<<<< SEARCH\n:start_line:1\n-------\n    sum = 0\n=======\n    total = 0\n>>>>>>> REPLACE\n\n<<<<<<< SEARCH\n:start_line:4\n-------\n    return sum\n=======\n    return total\n>>>>>>> REPLACE",
			[]Edit{{OldText: "    sum = 0\n", NewText: "    total = 0\n", StartLine: 1}, {OldText: "    return sum\n", NewText: "    return total\n", StartLine: 4}}},
		{"deepseek-v3: start and end line, spaces after the colon",
			"<<<<<<< SEARCH\n:start_line: 10\n:end_line: 11\n-------\na\nb\n=======\nc\n>>>>>>> REPLACE\n",
			[]Edit{{OldText: "a\nb\n", NewText: "c\n", StartLine: 10}}},
		{"gpt-4.1: dash header without a start line",
			"<<<<<<< SEARCH\n-------\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n",
			[]Edit{{OldText: "x = 1\n", NewText: "x = 2\n"}}},
		{"claude: SEARCH> and REPLACE< as Roo accepts them",
			"<<<<<<< SEARCH>\n:start_line:3\n-------\na\n=======\nb\n>>>>>>> REPLACE<\n",
			[]Edit{{OldText: "a\n", NewText: "b\n", StartLine: 3}}},
		{"qwen3-coder: escaped markers are content",
			"<<<<<<< SEARCH\n:start_line:7\n-------\n<<<<<<< HEAD\nmine\n\\=======\ntheirs\n\\>>>>>>> feature\n=======\nmine\n>>>>>>> REPLACE\n",
			[]Edit{{OldText: "<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> feature\n", NewText: "mine\n", StartLine: 7}}},
		{"markdown: a dash line after the header is the text's first line",
			"<<<<<<< SEARCH\n:start_line:5\n-------\n-------\nold\n=======\n-------\nnew\n>>>>>>> REPLACE\n",
			[]Edit{{OldText: "-------\nold\n", NewText: "-------\nnew\n", StartLine: 5}}},
		{"cline: a dash line after ------- SEARCH is content",
			"------- SEARCH\n-------\nold\n=======\n-------\nnew\n+++++++ REPLACE\n",
			[]Edit{{OldText: "-------\nold\n", NewText: "-------\nnew\n"}}},
		{"cline: a hint ends with a dash header too",
			"------- SEARCH\n:start_line:2\n-------\nold\n=======\nnew\n+++++++ REPLACE\n",
			[]Edit{{OldText: "old\n", NewText: "new\n", StartLine: 2}}},
		{"markdown: setext heading underlined in REPLACE",
			"<<<<<<< SEARCH\n:start_line:1\n-------\nTitle\n=======\nNew title\n=======\n\ntext\n>>>>>>> REPLACE\n",
			[]Edit{{OldText: "Title\n", NewText: "New title\n=======\n\ntext\n", StartLine: 1}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseSearchReplace(c.diff)
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// A marker left where it would be written into the file is refused with
// its line and what to do.
func TestParseSearchReplaceStrayMarkers(t *testing.T) {
	cases := []struct {
		name  string
		diff  string
		block int
		msg   []string
	}{
		{"gpt-4o: header repeated in the REPLACE section",
			"<<<<<<< SEARCH\n:start_line:12\n-------\n    return a\n=======\n:start_line:12\n-------\n    return b\n>>>>>>> REPLACE\n", 1,
			[]string{"line 6:", ":start_line: line in the REPLACE section", "written into the file", "remove it"}},
		{"gemini: dash line at the top of REPLACE",
			"<<<<<<< SEARCH\n:start_line:12\n-------\n    return a\n=======\n-------\n    return b\n>>>>>>> REPLACE\n", 1,
			[]string{"line 6:", "starts with a ------- line", "remove it"}},
		{"grok: two separators in a row",
			"<<<<<<< SEARCH\nold\n=======\n=======\nnew\n>>>>>>> REPLACE\n", 1,
			[]string{"line 4:", "second separator", "first is line 3", "\\======="}},
		{"grok: separator after a blank line in REPLACE",
			"<<<<<<< SEARCH\nold\n=======\nnew\n\n=======\n>>>>>>> REPLACE\n", 1,
			[]string{"line 6:", "second separator"}},
		{"claude: hint below the dash line",
			"<<<<<<< SEARCH\n-------\n:start_line:4\nold\n=======\nnew\n>>>>>>> REPLACE\n", 1,
			[]string{"line 3:", "inside the SEARCH text", "right after the SEARCH marker"}},
		{"deepseek: start line without its number",
			"<<<<<<< SEARCH\n:start_line:\n-------\nold\n=======\nnew\n>>>>>>> REPLACE\n", 1,
			[]string{"line 2:", "needs the number", ":start_line:12"}},
		{"deepseek: start line copied from the prompt",
			"<<<<<<< SEARCH\n:start_line: (required) The line number of original content where the search block starts.\n-------\nold\n=======\nnew\n>>>>>>> REPLACE\n", 1,
			[]string{"line 2:", "needs the number"}},
		{"two start lines", "<<<<<<< SEARCH\n:start_line:1\n:start_line:2\n-------\na\n=======\nb\n>>>>>>> REPLACE\n", 1,
			[]string{"line 3:", "second :start_line:"}},
		{"end before start", "<<<<<<< SEARCH\n:start_line:9\n:end_line:3\n-------\na\n=======\nb\n>>>>>>> REPLACE\n", 1,
			[]string{":end_line:3 comes before :start_line:9"}},
		{"grok: separator before the first block",
			"=======\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n", 0,
			[]string{"line 1:", "before the first SEARCH marker", "outside any block"}},
		{"stray REPLACE marker after a block",
			"<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\nc\n>>>>>>> REPLACE\n", 1,
			[]string{"line 7:", "REPLACE marker after block 1 ended on line 5"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseSearchReplace(c.diff)
			var se *SearchReplaceError
			if !errors.As(err, &se) || se.Block != c.block {
				t.Fatalf("error %#v, want block %d", err, c.block)
			}
			if errors.Is(err, ErrTruncated) {
				t.Errorf("%v reads as a truncation", err)
			}
			for _, m := range c.msg {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("%q lacks %q", err.Error(), m)
				}
			}
		})
	}
}

// The start line chooses among equal matches; it never writes itself.
func TestSearchReplaceStartLine(t *testing.T) {
	file := "func a() {\n\treturn nil\n}\n\nfunc b() {\n\treturn nil\n}\n"
	cases := []struct {
		name, diff, want string
		status           []Status
	}{
		{"claude: the hint picks the second of two",
			"<<<<<<< SEARCH\n:start_line:6\n-------\n\treturn nil\n=======\n\treturn err\n>>>>>>> REPLACE\n",
			"func a() {\n\treturn nil\n}\n\nfunc b() {\n\treturn err\n}\n", []Status{StatusApplied}},
		{"gemini: a hint one line off picks the nearer when it is alone in the window",
			"<<<<<<< SEARCH\n:start_line:5\n-------\nfunc b() {\n\treturn nil\n=======\nfunc b() {\n\treturn err\n>>>>>>> REPLACE\n",
			"func a() {\n\treturn nil\n}\n\nfunc b() {\n\treturn err\n}\n", []Status{StatusApplied}},
		{"no hint: ambiguous",
			"<<<<<<< SEARCH\n\treturn nil\n=======\n\treturn err\n>>>>>>> REPLACE\n",
			file, []Status{StatusAmbiguous}},
		{"a hint between the two decides nothing",
			"<<<<<<< SEARCH\n:start_line:4\n-------\n\treturn nil\n=======\n\treturn err\n>>>>>>> REPLACE\n",
			file, []Status{StatusAmbiguous}},
		{"a wrong hint does not stop a unique match",
			"<<<<<<< SEARCH\n:start_line:90\n-------\nfunc a() {\n=======\nfunc a2() {\n>>>>>>> REPLACE\n",
			"func a2() {\n\treturn nil\n}\n\nfunc b() {\n\treturn nil\n}\n", []Status{StatusApplied}},
		{"gpt-4.1: a first block that adds lines moves the second's hint",
			"<<<<<<< SEARCH\n:start_line:1\n-------\nfunc a() {\n=======\n// a does a.\nfunc a() {\n>>>>>>> REPLACE\n<<<<<<< SEARCH\n:start_line:6\n-------\n\treturn nil\n=======\n\treturn err\n>>>>>>> REPLACE\n",
			"// a does a.\nfunc a() {\n\treturn nil\n}\n\nfunc b() {\n\treturn err\n}\n", []Status{StatusApplied, StatusApplied}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			edits, err := ParseSearchReplace(c.diff)
			if err != nil {
				t.Fatal(err)
			}
			out, rs := ApplyEdits(file, edits, MatchOptions{})
			var got []Status
			for _, r := range rs {
				got = append(got, r.Status)
			}
			if !reflect.DeepEqual(got, c.status) {
				t.Fatalf("statuses %v, want %v (%+v)", got, c.status, rs)
			}
			if c.status[0] == StatusAmbiguous && strings.Contains(c.diff, ":start_line:") && !strings.Contains(rs[0].Hint, "start line 4") {
				t.Errorf("hint %q does not explain the start line", rs[0].Hint)
			}
			// A failed batch changes nothing here only by the caller's choice;
			// the file is compared when every edit applied.
			if c.status[0] == StatusApplied && out != c.want {
				t.Errorf("got %q\nwant %q", out, c.want)
			}
		})
	}
}

func TestLineMap(t *testing.T) {
	m := NewLineMap("a\nb\nc\nd\n", "a\nB1\nB2\nc\nd\n")
	for in, want := range map[int]int{1: 1, 2: 2, 3: 4, 4: 5} {
		if got := m.Line(in); got != want {
			t.Errorf("line %d -> %d, want %d", in, got, want)
		}
	}
}

// TestWithStartLine: a start line given beside a diff goes to its first
// block when that block has no hint of its own.
func TestWithStartLine(t *testing.T) {
	for _, tt := range []struct {
		name, diff string
		line       int
		want       []Edit
	}{
		{"Roo block without a header", "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n", 12,
			[]Edit{{OldText: "a\n", NewText: "b\n", StartLine: 12}}},
		{"Roo header without a hint", "<<<<<<< SEARCH\n-------\na\n=======\nb\n>>>>>>> REPLACE", 3,
			[]Edit{{OldText: "a\n", NewText: "b\n", StartLine: 3}}},
		{"the block's own hint wins", "<<<<<<< SEARCH\n:start_line:7\n-------\na\n=======\nb\n>>>>>>> REPLACE", 3,
			[]Edit{{OldText: "a\n", NewText: "b\n", StartLine: 7}}},
		{"only the first block", "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n<<<<<<< SEARCH\nc\n=======\nd\n>>>>>>> REPLACE\n", 2,
			[]Edit{{OldText: "a\n", NewText: "b\n", StartLine: 2}, {OldText: "c\n", NewText: "d\n"}}},
		{"CRLF", "<<<<<<< SEARCH\r\na\r\n=======\r\nb\r\n>>>>>>> REPLACE\r\n", 4,
			[]Edit{{OldText: "a\n", NewText: "b\n", StartLine: 4}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSearchReplace(WithStartLine(tt.diff, tt.line))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
