// Package eval judges recorded traffic offline with the proxy's own reading
// and rules (toolguard eval): JSON lines of OpenAI chat-completions or
// Anthropic messages exchanges, or of plain tool calls, streamed through
// in bounded memory into a Summary of what enforce mode would have done.
// Nothing is executed and no session is counted.
package eval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/toolguard/toolguard/proxy"
	"github.com/toolguard/toolguard/repair"
)

// Options bound a run and shape its summary.
type Options struct {
	// MaxLineBytes bounds one input line; a longer line is skipped and
	// reported, not read.
	MaxLineBytes int
	// Examples is how many calls of each class are kept as examples;
	// ExampleBytes truncates their arguments.
	Examples, ExampleBytes int
	// Progress, when set, is called every progressEvery lines and at the
	// end with the bytes read so far and the calls judged.
	Progress func(read int64, calls int)
	// MistakeLimit is the session limit the timeline counts against
	// (0: the guard's default, 3).
	MistakeLimit int
}

func (o Options) mistakeLimit() int {
	if o.MistakeLimit > 0 {
		return o.MistakeLimit
	}
	return 3
}

const progressEvery = 1000

// Evaluator judges lines with a replaying proxy (proxy.NewReplayer);
// plain tool calls are judged against Tools.
type Evaluator struct {
	Proxy *proxy.Proxy
	Tools []*repair.Tool
	Opts  Options
}

// line is one input line: an exchange ({"request", "response"}, "api"
// optional) or a plain call ({"tool", "arguments", "model"}).
type line struct {
	API       string          `json:"api"`
	Request   json.RawMessage `json:"request"`
	Response  json.RawMessage `json:"response"`
	Tool      *string         `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	Model     string          `json:"model"`
	// Session names the agent session of the calls (else their model
	// stands for it); Time is when the line was recorded: RFC 3339 text
	// or Unix seconds.
	Session string          `json:"session"`
	Time    json.RawMessage `json:"time"`
}

// Run reads r to its end into s. Unreadable lines are counted in s and
// skipped; the error is the input's (a read failure) or ctx's.
func (e *Evaluator) Run(ctx context.Context, r io.Reader, s *Summary) error {
	cr := &countingReader{r: r}
	br := bufio.NewReaderSize(cr, 64<<10)
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		text, tooLong, err := readLine(br, e.Opts.MaxLineBytes)
		if len(bytes.TrimSpace(text)) > 0 || tooLong {
			s.Lines++
			if tooLong {
				s.badLine(n, fmt.Errorf("line longer than %d bytes (--max-line-bytes): skipped", e.Opts.MaxLineBytes))
			} else {
				e.judgeLine(ctx, n, text, s)
			}
		}
		if e.Opts.Progress != nil && (n%progressEvery == 0 || err != nil) {
			e.Opts.Progress(cr.n, s.Calls)
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read line %d: %w", n, err)
		}
	}
}

// readLine reads one line without its end; past max bytes the rest of the
// line is read and dropped, and tooLong is set unless the line was blank.
// err is io.EOF at the end.
func readLine(br *bufio.Reader, max int) (text []byte, tooLong bool, err error) {
	var buf []byte
	blank := true
	for {
		chunk, err := br.ReadSlice('\n')
		blank = blank && len(bytes.TrimSpace(chunk)) == 0
		if !tooLong {
			if len(buf)+len(chunk) > max+2 { // +2: the line's end, \r\n
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		text = bytes.TrimSuffix(bytes.TrimSuffix(buf, []byte("\n")), []byte("\r"))
		return text, tooLong && !blank, err
	}
}

func (e *Evaluator) judgeLine(ctx context.Context, n int, text []byte, s *Summary) {
	var l line
	if err := json.Unmarshal(text, &l); err != nil {
		s.badLine(n, fmt.Errorf("not a JSON object: %w", err))
		return
	}
	if err := s.noteTime(l.Time); err != nil {
		s.badLine(n, err)
		return
	}
	switch {
	case l.Request != nil || l.Response != nil:
		e.judgeExchange(ctx, n, l, s)
	case l.Tool != nil:
		e.judgeCall(ctx, n, l, s)
	default:
		s.badLine(n, errors.New(`neither an exchange ("request" and "response") nor a call ("tool" and "arguments")`))
	}
}

func (e *Evaluator) judgeExchange(ctx context.Context, n int, l line, s *Summary) {
	if l.Request == nil || l.Response == nil {
		s.badLine(n, errors.New(`an exchange needs both "request" and "response"`))
		return
	}
	ex := proxy.Exchange{API: l.API, Request: l.Request, Response: l.Response}
	if l.Response[0] == '"' {
		// A string is a stream's transcript, the events as they came.
		var transcript string
		if err := json.Unmarshal(l.Response, &transcript); err != nil {
			s.badLine(n, fmt.Errorf("response: %w", err))
			return
		}
		ex.Response, ex.Stream = []byte(transcript), true
	}
	reports, err := e.Proxy.Replay(ctx, ex)
	if err != nil {
		s.badLine(n, err)
		return
	}
	s.Exchanges++
	for _, r := range reports {
		s.add(n, l.Session, r, e.Opts)
	}
}

func (e *Evaluator) judgeCall(ctx context.Context, n int, l line, s *Summary) {
	args, err := argumentsText(l.Arguments)
	if err != nil {
		s.badLine(n, err)
		return
	}
	s.PlainCalls++
	r, ok := e.Proxy.ReplayCall(ctx, l.Model, *l.Tool, args, e.Tools)
	if !ok {
		s.unknownTool(*l.Tool)
		return
	}
	r.API = "call"
	s.add(n, l.Session, r, e.Opts)
}

// argumentsText is a plain call's arguments as the model wrote them: a
// JSON string's content, or any other JSON value's own text.
func argumentsText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 {
		return "", errors.New(`a call needs "arguments"`)
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf("arguments: %w", err)
		}
		return s, nil
	}
	return strings.TrimSpace(string(raw)), nil
}

// countingReader counts the bytes read, for the progress bar.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
