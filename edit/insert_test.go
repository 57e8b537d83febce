package edit

import "testing"

func TestInsertAfter(t *testing.T) {
	for _, c := range []struct {
		name, content string
		n             int
		text, want    string
		ok            bool
	}{
		{"top", "a\nb\n", 0, "x", "x\na\nb\n", true},
		{"middle", "a\nb\n", 1, "x\n", "a\nx\nb\n", true},
		{"end", "a\nb\n", 2, "x", "a\nb\nx\n", true},
		{"end without final break", "a\nb", 2, "x", "a\nb\nx\n", true},
		{"empty file", "", 0, "x", "x\n", true},
		{"crlf kept", "a\r\nb\r\n", 1, "x\ny", "a\r\nx\r\ny\r\nb\r\n", true},
		{"bom kept first", "\uFEFFa\n", 0, "x", "\uFEFFx\na\n", true},
		{"indentation as given", "def f():\n    pass\n", 1, "    '''doc'''", "def f():\n    '''doc'''\n    pass\n", true},
		{"past the end", "a\n", 2, "x", "a\n", false},
		{"negative", "a\n", -1, "x", "a\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := InsertAfter(c.content, c.n, c.text)
			if got != c.want || ok != c.ok {
				t.Fatalf("InsertAfter(%q, %d, %q) = %q, %v; want %q, %v", c.content, c.n, c.text, got, ok, c.want, c.ok)
			}
		})
	}
}

func FuzzInsertAfter(f *testing.F) {
	f.Add("a\r\nb", 1, "x\ny")
	f.Fuzz(func(t *testing.T, content string, n int, text string) {
		out, ok := InsertAfter(content, n, text)
		if !ok {
			if out != content {
				t.Fatal("refused but changed")
			}
			return
		}
		if len(out) < len(content) {
			t.Fatal("lost text")
		}
	})
}
