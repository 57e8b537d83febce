package report

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/toolguard/toolguard/eval"
	"github.com/toolguard/toolguard/proxy"
	"github.com/toolguard/toolguard/repair"
)

// ownElements are the elements the page's template writes; any other, or
// an event handler attribute, would be the recording's making.
var ownElements = map[string]bool{}

func init() {
	for _, e := range strings.Fields("html head meta title style body h1 h2 h3 p code div span i svg line text rect " +
		"details summary table tr th td pre br b") {
		ownElements[e] = true
	}
}

// foreignMarkup is the first element or attribute of page the template
// does not write, or "".
func foreignMarkup(page []byte) string {
	z := html.NewTokenizer(bytes.NewReader(page))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			if !ownElements[tok.Data] {
				return "<" + tok.Data + ">"
			}
			for _, a := range tok.Attr {
				if strings.HasPrefix(a.Key, "on") || a.Key == "src" || a.Key == "href" {
					return tok.Data + " " + a.Key + "=" + a.Val
				}
			}
		}
	}
}

// FuzzWrite: whatever the recording holds, the page renders and holds no
// element or event handler of the recording's making.
func FuzzWrite(f *testing.F) {
	for _, seed := range []string{
		`{"tool": "Write", "arguments": "{'path': '<script>alert(1)</script>', 'content': '<img src=x onerror=alert(1)>'}", "model": "<iframe>"}`,
		`{"tool": "Write", "arguments": {"file_path": "\"><a href=x>", "content": "a\n</pre><script>"}, "session": "</title><script>"}`,
		`{"tool": "Write", "arguments": {"path": "a"}, "model": "m\" onload=\"x"}`,
	} {
		f.Add([]byte(seed))
	}
	p, err := proxy.NewReplayer(proxy.DefaultConfig())
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = p.Close() })
	tools, err := p.Compile([]repair.ToolDef{{Name: "Write", Parameters: map[string]any{
		"type":       "object",
		"properties": map[string]any{"path": map[string]any{"type": "string"}, "content": map[string]any{"type": "string"}},
		"required":   []any{"path", "content"}, "additionalProperties": false,
	}}})
	if err != nil {
		f.Fatal(err)
	}
	ev := &eval.Evaluator{Proxy: p, Tools: tools, Opts: eval.Options{MaxLineBytes: 4096, Examples: 2, ExampleBytes: 200}}
	f.Fuzz(func(t *testing.T, input []byte) {
		s := eval.NewSummary()
		s.Sources = []string{string(input[:min(len(input), 40)])}
		if err := ev.Run(context.Background(), bytes.NewReader(input), s); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := Write(&b, s); err != nil {
			t.Fatal(err)
		}
		if m := foreignMarkup(b.Bytes()); m != "" {
			t.Fatalf("the page holds %s", m)
		}
	})
}
