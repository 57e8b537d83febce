package report

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/eval"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/proxy"
	"github.com/toolguard/toolguard/repair"
)

const fixture = "testdata/recording.jsonl"

// summarize judges a recording as `toolguard eval` does: exchanges
// against their declared tools, plain calls against the built-in ones.
func summarize(t testing.TB, name string, opts eval.Options) *eval.Summary {
	t.Helper()
	p, err := proxy.NewReplayer(proxy.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	g, release, err := guard.New(guard.DefaultConfig(), guard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var defs []repair.ToolDef
	for _, tool := range g.Registry().Tools() {
		defs = append(defs, tool.Def())
	}
	_ = release()
	tools, err := p.Compile(defs)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	if opts.MaxLineBytes == 0 {
		opts.MaxLineBytes = 64 << 20
	}
	s := eval.NewSummary()
	s.Sources = []string{name}
	ev := &eval.Evaluator{Proxy: p, Tools: tools, Opts: opts}
	if err := ev.Run(context.Background(), f, s); err != nil {
		t.Fatal(err)
	}
	return s
}

func render(t testing.TB, s *eval.Summary) string {
	t.Helper()
	var b strings.Builder
	if err := Write(&b, s); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestEscaping: text from the recording (arguments, model names, feedback)
// is shown as text: the page holds no element of its own making.
func TestEscaping(t *testing.T) {
	page := render(t, summarize(t, fixture, eval.Options{Examples: 3, ExampleBytes: 300}))
	for _, want := range []string{
		`&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;`, // an argument
		`&lt;b&gt;bold-model&lt;/b&gt;`,                   // a model name
		`&lt;img src=\&#34;http://127.0.0.1:9/x.png\&#34;&gt;`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if m := foreignMarkup([]byte(page)); m != "" {
		t.Errorf("the page holds %s", m)
	}
}

// TestBounds: a summary at eval's bounds (every model and tool name taken,
// long values) renders to a page of bounded size, charts capped.
func TestBounds(t *testing.T) {
	s := summarize(t, fixture, eval.Options{Examples: 3, ExampleBytes: 300})
	long := strings.Repeat("x", 10_000)
	for i := range 200 {
		name := long[:100] + num(i)
		s.Models[name] = eval.Counts{"calls": i + 1, eval.ClassUsable: i + 1}
		s.Tools[name] = eval.Counts{"calls": 1, eval.ClassRefused: 1}
	}
	page := render(t, s)
	if len(page) > 1<<20 {
		t.Errorf("page of %d bytes", len(page))
	}
	if n := strings.Count(page, `<text x="144.0"`); n != 2*maxRows+len(s.Repairs)+len(s.Violations) {
		t.Errorf("%d chart labels, want %d", n, 2*maxRows+len(s.Repairs)+len(s.Violations))
	}
	if !strings.Contains(page, num(len(s.Models)-maxRows+1)+" others") {
		t.Error("the models past the chart's rows are not summed")
	}
}

// TestWorstSize: every code of the guard (72) with its examples at their
// largest, of characters escaping makes longest, stays a few MB.
func TestWorstSize(t *testing.T) {
	const limit = 300 // --example-bytes' default
	quotes := func(n int) string { return strings.Repeat(`"`, n) + "… (9999999 bytes)" }
	s := eval.NewSummary()
	for i := range 72 {
		e := eval.Example{Line: i, Model: quotes(limit), Tool: quotes(limit), Arguments: quotes(limit), Repaired: quotes(limit)}
		m, examples := s.Repairs, s.RepairExamples
		if i%2 == 0 {
			e.Feedback = quotes(4 * limit)
			m, examples = s.Violations, s.ViolationExamples
		} else {
			for range 4 { // changes() lists at most 8 limit's worth
				e.Changes = append(e.Changes, eval.Change{Param: quotes(limit), Before: quotes(limit), After: quotes(limit)})
			}
		}
		code := "CODE_" + num(i)
		m[code] = 1_000_000
		examples[code] = []eval.Example{e, e, e}
	}
	page := render(t, s)
	if len(page) > 6<<20 {
		t.Errorf("page of %d bytes", len(page))
	}
	t.Logf("%d bytes", len(page))
}

func TestNum(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1000: "-1,000"} {
		if got := num(n); got != want {
			t.Errorf("num(%d) = %q, want %q", n, got, want)
		}
	}
}
