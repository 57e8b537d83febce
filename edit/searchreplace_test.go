package edit

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseSearchReplace(t *testing.T) {
	cases := []struct {
		name string
		diff string
		want []Edit
	}{
		{"cline markers", "------- SEARCH\nfoo()\n=======\nbar()\n+++++++ REPLACE\n",
			[]Edit{{OldText: "foo()\n", NewText: "bar()\n"}}},
		{"no final newline", "------- SEARCH\nfoo()\n=======\nbar()\n+++++++ REPLACE",
			[]Edit{{OldText: "foo()\n", NewText: "bar()\n"}}},
		{"legacy markers", "<<<<<<< SEARCH\na\nb\n=======\nc\n>>>>>>> REPLACE\n",
			[]Edit{{OldText: "a\nb\n", NewText: "c\n"}}},
		{"mixed markers", "<<<<<<< SEARCH\na\n=======\nb\n+++++++ REPLACE\n",
			[]Edit{{OldText: "a\n", NewText: "b\n"}}},
		{"trailing >", "------- SEARCH>\na\n=======\nb\n+++++++ REPLACE>\n",
			[]Edit{{OldText: "a\n", NewText: "b\n"}}},
		{"legacy trailing >", "<<<<<<< SEARCH>\na\n=======\nb\n>>>>>>> REPLACE\n",
			[]Edit{{OldText: "a\n", NewText: "b\n"}}},
		{"no space", "-------SEARCH\na\n=======\nb\n+++++++REPLACE\n",
			[]Edit{{OldText: "a\n", NewText: "b\n"}}},
		{"trailing spaces and other lengths", "---------- SEARCH  \na\n========== \nb\n+++ REPLACE\t\n",
			[]Edit{{OldText: "a\n", NewText: "b\n"}}},
		{"lowercase", "------- search\na\n=======\nb\n+++++++ replace\n",
			[]Edit{{OldText: "a\n", NewText: "b\n"}}},
		{"CRLF", "------- SEARCH\r\na\r\nb\r\n=======\r\nc\r\n+++++++ REPLACE\r\n",
			[]Edit{{OldText: "a\nb\n", NewText: "c\n"}}},
		{"several blocks, prose and fences around",
			"I will change two things.\n```\n------- SEARCH\none\n=======\n1\n+++++++ REPLACE\n```\nand\n<<<<<<< SEARCH\ntwo\n=======\n2\n>>>>>>> REPLACE\ndone\n",
			[]Edit{{OldText: "one\n", NewText: "1\n"}, {OldText: "two\n", NewText: "2\n"}}},
		{"empty search", "------- SEARCH\n=======\nnew file\n+++++++ REPLACE\n",
			[]Edit{{OldText: "", NewText: "new file\n"}}},
		{"empty replace deletes", "------- SEARCH\ngone\n=======\n+++++++ REPLACE\n",
			[]Edit{{OldText: "gone\n", NewText: ""}}},
		{"blank lines kept", "------- SEARCH\n\na\n\n=======\nb\n\n+++++++ REPLACE\n",
			[]Edit{{OldText: "\na\n\n", NewText: "b\n\n"}}},
		{"separator-like lines in REPLACE are content", "------- SEARCH\nTitle\n=======\nTitle\n=======\n+++++++ REPLACE\n",
			[]Edit{{OldText: "Title\n", NewText: "Title\n=======\n"}}},
		{"an underline in SEARCH stays content", "------- SEARCH\nTitle\n=====\n=======\nNew title\n=========\n+++++++ REPLACE\n",
			[]Edit{{OldText: "Title\n=====\n", NewText: "New title\n=========\n"}}},
		{"markers are not matched inside lines", "------- SEARCH\nx := \"------- SEARCH\"\n=======\ny\n+++++++ REPLACE\n",
			[]Edit{{OldText: "x := \"------- SEARCH\"\n", NewText: "y\n"}}},
		{"replacement text is literal", "------- SEARCH\na\n=======\n$1 $& \\n\n+++++++ REPLACE\n",
			[]Edit{{OldText: "a\n", NewText: "$1 $& \\n\n"}}},
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

func TestParseSearchReplaceErrors(t *testing.T) {
	cases := []struct {
		name  string
		diff  string
		block int
		msg   []string
		// truncated: the diff ends inside its last block, as a cut-off
		// output does (errors.Is ErrTruncated).
		truncated bool
	}{
		{"nothing", "just some text\n", 0, []string{"no SEARCH/REPLACE block"}, false},
		{"empty", "", 0, []string{"no SEARCH/REPLACE block"}, false},
		{"no separator", "------- SEARCH\na\n+++++++ REPLACE\n", 1, []string{"block 1 (line 1)", "no ======= separator", "REPLACE marker on line 3"}, false},
		{"no separator at end", "------- SEARCH\na\n", 1, []string{"block 1", "no ======= separator before the end"}, true},
		{"no replace marker", "------- SEARCH\na\n=======\nb\n", 1, []string{"block 1", "missing +++++++ REPLACE"}, true},
		{"cut inside the REPLACE marker", "------- SEARCH\na\n=======\nb\n+++++++ REPL", 1, []string{"block 1", "missing +++++++ REPLACE"}, true},
		{"second block broken", "------- SEARCH\na\n=======\nb\n+++++++ REPLACE\n\n------- SEARCH\nc\n=======\nd\n", 2,
			[]string{"block 2 (line 7)", "missing +++++++ REPLACE"}, true},
		{"next SEARCH before REPLACE", "------- SEARCH\na\n=======\nb\n------- SEARCH\nc\n=======\nd\n+++++++ REPLACE\n", 1,
			[]string{"block 1", "next SEARCH marker (line 5)"}, false},
		{"SEARCH inside SEARCH", "------- SEARCH\na\n<<<<<<< SEARCH\nb\n=======\nc\n>>>>>>> REPLACE\n", 1,
			[]string{"block 1", "next SEARCH marker on line 3"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseSearchReplace(c.diff)
			if err == nil {
				t.Fatal("no error")
			}
			var se *SearchReplaceError
			if !errors.As(err, &se) || se.Block != c.block {
				t.Errorf("error %#v, want block %d", err, c.block)
			}
			for _, m := range c.msg {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("%q lacks %q", err.Error(), m)
				}
			}
			if got := errors.Is(err, ErrTruncated); got != c.truncated {
				t.Errorf("errors.Is(ErrTruncated) = %v, want %v", got, c.truncated)
			}
		})
	}
}

func TestSearchReplaceApplied(t *testing.T) {
	file := "package main\r\n\r\nfunc main() {\r\n\tfmt.Println(\"hi\")\r\n}\r\n"
	diff := "<<<<<<< SEARCH\nfunc main() {\n    fmt.Println(\"hi\")\n=======\nfunc main() {\n    fmt.Println(\"hello\")\n>>>>>>> REPLACE\n" +
		"------- SEARCH\npackage main\n=======\npackage app\n+++++++ REPLACE\n"
	edits, err := ParseSearchReplace(diff)
	if err != nil {
		t.Fatal(err)
	}
	out, rs := ApplyEdits(file, edits, MatchOptions{})
	want := "package app\r\n\r\nfunc main() {\r\n\tfmt.Println(\"hello\")\r\n}\r\n"
	if out != want {
		t.Errorf("got %q\nwant %q", out, want)
	}
	if rs[0].Strategy != StrategyIndent || rs[1].Strategy != StrategyExact {
		t.Errorf("strategies %s, %s", rs[0].Strategy, rs[1].Strategy)
	}
	// Empty SEARCH: a new file gets the content; an existing one refuses.
	edits, _ = ParseSearchReplace("------- SEARCH\n=======\nhello\n+++++++ REPLACE\n")
	if out, r := ApplyEdit("", edits[0], MatchOptions{}); r.Status != StatusApplied || out != "hello\n" {
		t.Errorf("empty file: %s %q", r.Status, out)
	}
	if out, r := ApplyEdit("old\n", edits[0], MatchOptions{}); r.Status != StatusNotFound || out != "old\n" || r.Hint == "" {
		t.Errorf("existing file: %s %q", r.Status, out)
	}
}

func FuzzParseSearchReplace(f *testing.F) {
	f.Add("------- SEARCH\na\n=======\nb\n+++++++ REPLACE\n")
	f.Add("<<<<<<< SEARCH>\r\na\r\n========\r\n>>>>>>> REPLACE")
	f.Add("------- SEARCH\n=======\n=======\n+++++++ REPLACE\n------- SEARCH\nx\n")
	f.Add("-------SEARCH\n\n===\n\n+++REPLACE>\n")
	f.Add("------- SEARCH\na\n=======\nb\n+++++++ REPL")
	f.Add("------- SEARCH\na\n=======\nb\n+++++++ REPLACE\n\n------- SEARCH\nc\n==")
	f.Fuzz(func(t *testing.T, diff string) {
		edits, err := ParseSearchReplace(diff)
		if err != nil {
			if edits != nil {
				t.Fatal("edits with an error")
			}
			return
		}
		if len(edits) == 0 {
			t.Fatal("no edits and no error")
		}
		if len(diff) <= 2048 {
			checkSearchReplaceCuts(t, diff)
		}
		for _, e := range edits {
			for _, s := range []string{e.OldText, e.NewText} {
				if s != "" && !strings.HasSuffix(s, "\n") {
					t.Fatalf("section %q does not end with a newline", s)
				}
				// A line ending in a lone CR ("x\r" + CRLF) keeps its CR.
				if strings.Count(s, "\r\n") > strings.Count(diff, "\r\r\n") {
					t.Fatalf("section %q kept CRLF", s)
				}
			}
		}
	})
}

// checkSearchReplaceCuts cuts an accepted diff at every earlier offset: a
// cut inside a block is refused as truncated; a cut before any block is
// refused as having none; a cut between blocks parses.
func checkSearchReplaceCuts(t *testing.T, diff string) {
	for k := range len(diff) {
		_, err := ParseSearchReplace(diff[:k])
		var se *SearchReplaceError
		if err != nil && (!errors.As(err, &se) || se.Block != 0 && !errors.Is(err, ErrTruncated)) {
			t.Fatalf("cut at %d of %q: %v, not a truncation", k, diff, err)
		}
	}
}
