package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protojson"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/repair/stream"
	"github.com/toolguard/toolguard/service"
	"github.com/toolguard/toolguard/service/protoapi"
)

// runStream mirrors StreamToolCalls offline: StreamToolCallsRequest frames as
// JSON lines on stdin go through protoapi.RunStream, and each event is
// printed as one line as soon as it is known. The start frame is optional
// (the flags fill or make it; an explicit flag that contradicts the frame is
// an error, and only --execute lets a stream write); so is the end frame,
// added at the end of the input so open calls conclude as truncated. With
// --raw, stdin is the model's text.
//
// Exit status: 0 when the stream ran to its done event; 2 for a caller's
// mistake (the events before it are printed); 1 when the output cannot be
// written or the core fails.
func runStream(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg := guard.DefaultConfig()
	cfg.Workspace = "" // only --execute opens one
	def := service.DefaultConfig()
	limits := protoapi.StreamLimits{MaxCallBytes: def.MaxCallBytes, MaxParamBytes: def.MaxParamBytes, MaxJSONDepth: def.MaxJSONDepth}
	fs := newFlagSet("stream", streamUsage, stderr)
	var o streamFlags
	fs.StringVar(&o.format, "format", "", "`format` the model writes tool calls in: "+stream.FormatList()+" (or the STREAM_FORMAT_* name); required unless the start frame sets it")
	fs.StringVar(&o.session, "session", "cli", "session `id` the calls are counted in")
	fs.StringVar(&o.model, "model", "", "model `id`, selects model-specific fixes and tool variants")
	fs.StringVar(&o.finishReason, "finish-reason", "", "finish `reason` of the end frame added when the input has none (e.g. stop, length)")
	fs.BoolVar(&o.execute, "execute", false, "execute each complete, usable write or edit call in --workspace as it closes (execute_on_complete)")
	fs.StringVar(&cfg.Workspace, "workspace", ".", "workspace `directory` --execute writes in (must exist; no variable sets it: TOOLGUARD_WORKSPACE is serve's)")
	bindSetting(fs, &cfg, "agent-root")
	fs.BoolVar(&o.dryRun, "dry-run", false, "with --execute: show each execution and its diff, write nothing")
	fs.BoolVar(&o.partial, "partial", false, "with --execute: apply the edits of a batch that can be applied")
	bindSetting(fs, &cfg, "tools-file")
	fs.IntVar(&limits.MaxCallBytes, "max-call-bytes", limits.MaxCallBytes, "largest streamed tool call in `bytes`")
	fs.IntVar(&limits.MaxParamBytes, "max-param-bytes", limits.MaxParamBytes, "largest parameter value of a streamed tool call in `bytes`")
	fs.BoolVar(&o.raw, "raw", false, "stdin is the model's raw text, not JSON frames (text formats only)")
	if code, ok := parseCommandFlags(fs, args, stderr); !ok {
		return code
	}
	fs.Visit(func(f *flag.Flag) { o.set = append(o.set, f.Name) })
	if err := o.check(cfg, limits); err != nil {
		return fail(stderr, "stream", 2, err)
	}
	g, cleanup, err := guard.New(cfg, guard.Options{})
	if err != nil {
		return fail(stderr, "stream", 2, err)
	}
	defer func() { _ = cleanup() }()
	src := &frameSource{flags: &o, where: madeStart}
	if o.raw {
		src.raw = bufio.NewReaderSize(stdin, 32<<10)
	} else {
		src.lines = bufio.NewScanner(stdin)
		src.lines.Buffer(make([]byte, 0, 64<<10), maxStdinBytes)
	}
	err = protoapi.RunStream(context.Background(), g, protoapi.StreamOptions{Limits: limits}, src.recv, streamPrinter(stdout))
	if err == nil {
		err = src.rest()
	}
	if err == nil {
		return 0
	}
	var (
		ie *inputError
		oe *outputError
		fe *protoapi.FieldError
		te *guard.InvalidToolDefinitionError
		we *guard.UnknownWorkspaceError
	)
	switch {
	case errors.As(err, &ie):
		return fail(stderr, "stream", 2, ie)
	case errors.As(err, &oe):
		return fail(stderr, "stream", 1, oe)
	case errors.As(err, &fe), errors.As(err, &te), errors.As(err, &we):
		return fail(stderr, "stream", 2, fmt.Errorf("%s: %w", src.where, err))
	default:
		return fail(stderr, "stream", 1, fmt.Errorf("%s: %w", src.where, err))
	}
}

const streamUsage = "Usage: toolguard stream --format FORMAT [flags] < frames.jsonl\n" +
	"       toolguard stream --format FORMAT --raw [flags] < response.txt\n\n" +
	"Reads StreamToolCallsRequest frames as JSON lines ({\"delta\":{\"text\":\"...\"}}, {\"end\":{\"finishReason\":\"stop\"}})\n" +
	"and prints StreamToolCallsResponse events as JSON lines. The start frame is optional (made\n" +
	"from the flags); so is the end frame (added at the end of the input). Nothing is written\n" +
	"without --execute, which writes in --workspace DIR (the current directory by default).\n\n"

type streamFlags struct {
	format, session, model, finishReason string
	execute, dryRun, partial, raw        bool
	set                                  []string
	// formatValue is format parsed; unspecified when not set.
	formatValue toolguardv1.StreamFormat
}

func (o *streamFlags) given(name string) bool { return slices.Contains(o.set, name) }

func (o *streamFlags) check(cfg guard.Config, limits protoapi.StreamLimits) error {
	if o.format != "" {
		f, err := parseStreamFormat(o.format)
		if err != nil {
			return err
		}
		o.formatValue = f
	}
	if !o.execute {
		for _, name := range []string{"workspace", "agent-root", "dry-run", "partial"} {
			if o.given(name) {
				return fmt.Errorf("--%s applies only with --execute (without it nothing is executed or written)", name)
			}
		}
	}
	if limits.MaxCallBytes <= 0 || limits.MaxParamBytes <= 0 {
		return errors.New("--max-call-bytes and --max-param-bytes must be positive")
	}
	if o.raw {
		if o.formatValue == toolguardv1.StreamFormat_STREAM_FORMAT_UNSPECIFIED {
			return errors.New("--raw needs --format")
		}
		if o.formatValue == toolguardv1.StreamFormat_STREAM_FORMAT_OPENAI || o.formatValue == toolguardv1.StreamFormat_STREAM_FORMAT_ANTHROPIC {
			return fmt.Errorf("--raw reads text, but --format %s carries tool calls in JSON frames: drop --raw", o.format)
		}
	}
	return nil
}

// parseStreamFormat accepts a short name in any case (xml_tags) or the enum
// name (STREAM_FORMAT_XML_TAGS).
func parseStreamFormat(s string) (toolguardv1.StreamFormat, error) {
	name := "STREAM_FORMAT_" + strings.TrimPrefix(strings.ToUpper(s), "STREAM_FORMAT_")
	v, ok := toolguardv1.StreamFormat_value[name]
	if !ok || v == int32(toolguardv1.StreamFormat_STREAM_FORMAT_UNSPECIFIED) {
		return 0, fmt.Errorf("--format %q: want %s", s, stream.FormatList())
	}
	return toolguardv1.StreamFormat(v), nil
}

// startFrame makes the start frame from the flags, or completes the input's.
func (o *streamFlags) startFrame(st *toolguardv1.StreamStart) error {
	if st == nil {
		st = &toolguardv1.StreamStart{}
	}
	if st.Context == nil {
		st.Context = &toolguardv1.RequestContext{}
	}
	if st.Options == nil {
		st.Options = &toolguardv1.StreamOptions{}
	}
	c, opts := st.Context, st.Options
	if err := o.fill(&c.SessionId, o.session, "session", "start frame's context.session_id"); err != nil {
		return err
	}
	if err := o.fill(&c.ModelId, o.model, "model", "start frame's context.model_id"); err != nil {
		return err
	}
	switch {
	case st.Format == toolguardv1.StreamFormat_STREAM_FORMAT_UNSPECIFIED && o.formatValue == toolguardv1.StreamFormat_STREAM_FORMAT_UNSPECIFIED:
		return errors.New("--format is required when the input does not begin with a start frame that sets format")
	case st.Format == toolguardv1.StreamFormat_STREAM_FORMAT_UNSPECIFIED:
		st.Format = o.formatValue
	case o.formatValue != toolguardv1.StreamFormat_STREAM_FORMAT_UNSPECIFIED && st.Format != o.formatValue:
		return fmt.Errorf("--format %s contradicts the start frame's format %s", o.format, st.Format)
	}
	if opts.ExecuteOnComplete && !o.execute {
		return errors.New("the start frame sets options.execute_on_complete: pass --execute --workspace DIR to let the stream write files")
	}
	opts.ExecuteOnComplete = o.execute
	// Either side asking for a dry run or a partial batch gets it.
	opts.DryRun = opts.DryRun || o.dryRun
	opts.Partial = opts.Partial || o.partial
	return nil
}

// fill sets a frame field the frame leaves empty from its flag; an explicit
// flag must agree with a value the frame sets.
func (o *streamFlags) fill(field *string, value, flagName, frameField string) error {
	switch {
	case *field == "":
		*field = value
	case o.given(flagName) && *field != value:
		return fmt.Errorf("--%s %q contradicts the %s %q", flagName, value, frameField, *field)
	}
	return nil
}

// inputError is a caller's mistake in the input, naming where it is.
type inputError struct {
	where string // empty for the flags
	err   error
}

func (e *inputError) Error() string {
	if e.where == "" {
		return e.err.Error()
	}
	return e.where + ": " + e.err.Error()
}
func (e *inputError) Unwrap() error { return e.err }

type outputError struct{ err error }

func (e *outputError) Error() string { return "write event: " + e.err.Error() }
func (e *outputError) Unwrap() error { return e.err }

// streamPrinter prints each event as one line of JSON.
func streamPrinter(stdout io.Writer) func(*toolguardv1.StreamToolCallsResponse) error {
	return func(ev *toolguardv1.StreamToolCallsResponse) error {
		out, err := protoapi.JSON(ev, false)
		if err != nil {
			return &outputError{err: err}
		}
		if _, err := fmt.Fprintln(stdout, string(out)); err != nil {
			return &outputError{err: err}
		}
		return nil
	}
}

// frameSource hands RunStream the frames read on stdin, adding the start and
// end frames the input leaves out.
type frameSource struct {
	flags        *streamFlags
	lines        *bufio.Scanner // JSON lines
	raw          *bufio.Reader  // --raw text
	line         int            // lines read so far
	where        string
	started      bool
	eof          bool // the input is exhausted
	ended        bool // an end frame was handed out
	pending      *toolguardv1.StreamToolCallsRequest
	pendingWhere string
	// held is an incomplete UTF-8 sequence at the end of a raw read.
	held, buf []byte
}

const (
	madeStart = "the start frame made from the flags"
	madeEnd   = "the end frame added at the end of the input"
)

func (s *frameSource) recv() (*toolguardv1.StreamToolCallsRequest, error) {
	if s.ended {
		return nil, io.EOF // RunStream stops at the end frame: not reached
	}
	var f *toolguardv1.StreamToolCallsRequest
	switch {
	case !s.started:
		s.started = true
		first, where, err := s.next()
		if err != nil {
			return nil, err
		}
		if start := first.GetStart(); start != nil {
			s.where = where
			if err := s.flags.startFrame(start); err != nil {
				return nil, &inputError{where: where, err: err}
			}
			return first, nil
		}
		s.pending, s.pendingWhere = first, where
		s.where = madeStart
		start := &toolguardv1.StreamStart{}
		if err := s.flags.startFrame(start); err != nil {
			return nil, &inputError{err: err} // a flag's mistake: no line to name
		}
		return &toolguardv1.StreamToolCallsRequest{Frame: &toolguardv1.StreamToolCallsRequest_Start{Start: start}}, nil
	case s.pending != nil:
		f, s.where = s.pending, s.pendingWhere
		s.pending = nil
	default:
		var err error
		if f, s.where, err = s.next(); err != nil {
			return nil, err
		}
	}
	if end := f.GetEnd(); end != nil {
		s.ended = true
		if err := s.flags.fill(&end.FinishReason, s.flags.finishReason, "finish-reason", "end frame's finish_reason"); err != nil {
			return nil, &inputError{where: s.where, err: err}
		}
	}
	return f, nil
}

// next reads the next frame and says where it came from; at the end of the
// input it makes the end frame.
func (s *frameSource) next() (*toolguardv1.StreamToolCallsRequest, string, error) {
	if !s.eof {
		var (
			f     *toolguardv1.StreamToolCallsRequest
			where string
			err   error
		)
		if s.raw != nil {
			f, where, err = s.nextRaw()
		} else {
			f, where, err = s.nextLine()
		}
		if err != nil || f != nil {
			return f, where, err
		}
		s.eof = true
	}
	end := &toolguardv1.StreamToolCallsRequest{Frame: &toolguardv1.StreamToolCallsRequest_End{End: &toolguardv1.StreamEnd{FinishReason: s.flags.finishReason}}}
	return end, madeEnd, nil
}

func (s *frameSource) nextLine() (*toolguardv1.StreamToolCallsRequest, string, error) {
	for s.lines.Scan() {
		s.line++
		text := s.lines.Bytes()
		if len(strings.TrimSpace(string(text))) == 0 {
			continue
		}
		where := fmt.Sprintf("line %d", s.line)
		f := &toolguardv1.StreamToolCallsRequest{}
		if err := protojson.Unmarshal(text, f); err != nil {
			return nil, where, &inputError{where: where, err: fmt.Errorf("not a StreamToolCallsRequest frame in JSON: %v", err)}
		}
		return f, where, nil
	}
	switch err := s.lines.Err(); {
	case errors.Is(err, bufio.ErrTooLong):
		return nil, "", &inputError{where: fmt.Sprintf("line %d", s.line+1), err: fmt.Errorf("longer than %d bytes", maxStdinBytes)}
	case err != nil:
		return nil, "", &inputError{where: "stdin", err: err}
	}
	return nil, "", nil
}

// nextRaw reads raw text as a delta frame; a UTF-8 sequence split by a read
// waits for the next.
func (s *frameSource) nextRaw() (*toolguardv1.StreamToolCallsRequest, string, error) {
	if s.buf == nil {
		s.buf = make([]byte, 32<<10)
	}
	for {
		n, err := s.raw.Read(s.buf)
		data := append(s.held, s.buf[:n]...)
		cut := len(data)
		for k := len(data) - 1; k >= 0 && k >= len(data)-utf8.UTFMax; k-- {
			if utf8.RuneStart(data[k]) {
				if !utf8.FullRune(data[k:]) {
					cut = k
				}
				break
			}
		}
		text := data[:cut]
		s.held = append([]byte(nil), data[cut:]...)
		if !utf8.Valid(text) || (err != nil && len(s.held) > 0) {
			return nil, "", &inputError{where: "stdin", err: errors.New("the text is not valid UTF-8")}
		}
		if len(text) > 0 {
			// bufio.Reader reports a read error on the next read.
			return &toolguardv1.StreamToolCallsRequest{Frame: &toolguardv1.StreamToolCallsRequest_Delta{Delta: &toolguardv1.StreamDelta{Text: string(text)}}}, "stdin", nil
		}
		switch {
		case errors.Is(err, io.EOF):
			return nil, "", nil
		case err != nil:
			return nil, "", &inputError{where: "stdin", err: err}
		}
	}
}

// rest refuses input after the end frame: ignoring it would hide a mistake.
func (s *frameSource) rest() error {
	if s.eof || s.lines == nil {
		return nil
	}
	end := s.where
	f, where, err := s.nextLine()
	if err != nil {
		return err
	}
	if f != nil {
		return &inputError{where: where, err: fmt.Errorf("input continues after the end frame (%s)", end)}
	}
	return nil
}
