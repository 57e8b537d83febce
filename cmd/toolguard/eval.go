package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/toolguard/toolguard/eval"
	"github.com/toolguard/toolguard/eval/report"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/proxy"
	"github.com/toolguard/toolguard/repair"
)

const evalUsage = `Usage: toolguard eval [flags] [FILE.jsonl ...]

Judges recorded traffic offline, as the proxy in enforce mode would, and
prints what it would have done: calls usable as sent, repaired (by repair
code), refused (by violation code), truncated, per model and per tool, with
examples. Nothing is executed and no session is counted. Reads the files, or
stdin without one (or for "-"). --html FILE also writes the report as one
self-contained HTML page, with charts, that opens offline. Each line is one of:

  {"request": {...}, "response": {...}}         an OpenAI chat completion or Anthropic message
  {"request": {...}, "response": "data: ..."}   the same, streamed: the SSE transcript as a string
  {"tool": "Write", "arguments": "{...}", "model": "m"}   a plain call (arguments as written, or an object)

An exchange may name its "api" (openai or anthropic); otherwise the answer's
shape tells. Exchanges are judged against the tools their request declares;
plain calls against the built-in tools and --tools-file.

Flags:

`

// evalOptions are eval's command line.
type evalOptions struct {
	json         bool
	html         string
	examples     int
	exampleBytes int
	maxLineBytes int
	toolsFile    string
	cfg          proxy.Config
}

func runEval(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("eval", evalUsage, stderr)
	o := evalOptions{cfg: proxy.DefaultConfig()}
	fs.BoolVar(&o.json, "json", false, "print the summary as JSON")
	fs.StringVar(&o.html, "html", "", "also write the report as one self-contained HTML page to `file`")
	fs.IntVar(&o.examples, "examples", 3, "`number` of calls kept as examples of each class")
	fs.IntVar(&o.exampleBytes, "example-bytes", 300, "an example's arguments are cut after this many `bytes`")
	fs.IntVar(&o.maxLineBytes, "max-line-bytes", 64<<20, "longest input line read, in `bytes` (a longer one is skipped and reported)")
	fs.StringVar(&o.toolsFile, "tools-file", "", "YAML or JSON `file` of custom tool definitions, for plain calls")
	fs.Var((*listValue)(&o.cfg.Tools), "tools", "comma-separated `names` of the tools judged, as the proxy's --tools (empty: every declared tool)")
	fs.Var((*boolValue)(&o.cfg.Strict), "strict", "as the proxy's --strict: a repaired call that still breaks its schema is refused")
	fs.Var((*intValue)(&o.cfg.MaxCallBytes), "max-call-bytes", "as the proxy's --max-call-bytes: a streamed call of more `bytes` of arguments is too_large")
	if code, ok := parseFlagsOnly(fs, args); !ok {
		return code
	}
	if o.examples < 0 || o.exampleBytes < 1 || o.maxLineBytes < 1 {
		return fail(stderr, "eval", 2, fmt.Errorf("--examples must be at least 0, --example-bytes and --max-line-bytes at least 1"))
	}
	ev, cleanup, err := newEvaluator(o)
	if err != nil {
		return fail(stderr, "eval", 2, err)
	}
	defer cleanup()
	s := eval.NewSummary()
	files := fs.Args()
	if len(files) == 0 {
		files = []string{"-"}
	}
	for _, name := range files {
		s.Sources = append(s.Sources, name)
		if err := evalFile(ev, name, stdin, stderr, s); err != nil {
			return fail(stderr, "eval", 2, err)
		}
	}
	if o.json {
		err = json.NewEncoder(stdout).Encode(s)
	} else {
		err = s.WriteText(stdout)
	}
	if err != nil {
		return fail(stderr, "eval", 2, err)
	}
	if o.html != "" {
		if err := writeReport(o.html, s); err != nil {
			return fail(stderr, "eval", 2, err)
		}
	}
	return 0
}

// writeReport writes the HTML report to a new file beside name and
// renames it over name, so a failed run leaves no half page.
func writeReport(name string, s *eval.Summary) error {
	f, err := os.CreateTemp(filepath.Dir(name), ".toolguard-report-*.html")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(f.Name()) }()
	err = report.Write(f, s)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), name)
	}
	return err
}

// parseFlagsOnly parses flags; the arguments left are eval's files.
func parseFlagsOnly(fs *flag.FlagSet, args []string) (code int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0, false
		}
		return 2, false
	}
	return 0, true
}

// newEvaluator builds the replaying proxy and compiles the tools plain
// calls are judged against: the built-in ones and the tools file's.
func newEvaluator(o evalOptions) (*eval.Evaluator, func(), error) {
	p, err := proxy.NewReplayer(o.cfg)
	if err != nil {
		return nil, nil, err
	}
	gcfg := guard.DefaultConfig()
	gcfg.ToolsFile = o.toolsFile
	g, release, err := guard.New(gcfg, guard.Options{})
	if err != nil {
		_ = p.Close()
		return nil, nil, err
	}
	var defs []repair.ToolDef
	for _, t := range g.Registry().Tools() {
		defs = append(defs, t.Def())
	}
	_ = release()
	tools, err := p.Compile(defs)
	if err != nil {
		_ = p.Close()
		return nil, nil, err
	}
	ev := &eval.Evaluator{Proxy: p, Tools: tools, Opts: eval.Options{
		MaxLineBytes: o.maxLineBytes, Examples: o.examples, ExampleBytes: o.exampleBytes,
		MistakeLimit: int(gcfg.MistakeLimit),
	}}
	return ev, func() { _ = p.Close() }, nil
}

// evalFile runs one input through ev, with a progress line on stderr when
// it is a terminal.
func evalFile(ev *eval.Evaluator, name string, stdin io.Reader, stderr io.Writer, s *eval.Summary) error {
	r, size := stdin, int64(-1)
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer func() { _ = f.Close() }()
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
		r = f
	}
	ev.Opts.Progress = nil
	if isTerminal(stderr) {
		bar := &progress{w: stderr, name: name, size: size}
		ev.Opts.Progress = bar.show
		defer bar.done()
	}
	if err := ev.Run(context.Background(), r, s); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// isTerminal reports a character device, where a progress line redrawn
// in place reads well; a file or a pipe gets none.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// progress redraws one line: bytes read (of the file's size when known)
// and calls judged, at most a few times a second.
type progress struct {
	w     io.Writer
	name  string
	size  int64
	last  time.Time
	shown bool
}

func (p *progress) show(read int64, calls int) {
	if now := time.Now(); now.Sub(p.last) >= 200*time.Millisecond {
		p.last, p.shown = now, true
		if p.size > 0 {
			fmt.Fprintf(p.w, "\r%s: %5.1f%%  %d/%d MB  %d calls", p.name, 100*float64(read)/float64(p.size), read>>20, p.size>>20, calls)
		} else {
			fmt.Fprintf(p.w, "\r%s: %d MB  %d calls", p.name, read>>20, calls)
		}
	}
}

func (p *progress) done() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
