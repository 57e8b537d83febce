// Package stream parses tool calls out of a model's response while it
// streams, in the formats models use (one file each). A Parser is fed the
// response split anywhere and reports Events as soon as it knows something;
// what it finds does not depend on the split. Each byte is read a bounded
// number of times and only the open call is held in memory.
//
// It finds calls without judging them: a closed call is a repair.Call as the
// model wrote it, for repair.Registry.Validate. Parameter previews are best
// effort but stable (a string only grows, a value never changes type).
//
// In Hermes, QwenXML, MiniMax, GLM45, Pythonic, ClaudeXML, Auto and the
// formats of header.go, white space around calls is layout and passes on as no text:
// inside a wrapper, between calls, and before the first or after the last
// call when no prose shares it; prose passes on exactly (layout.go).
package stream

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/toolguard/toolguard/repair"
)

// Format is how a model writes tool calls.
type Format int

const (
	// XMLTags is Cline style <tool><param>value</param></tool>, for Options.Tools.
	XMLTags Format = iota + 1
	// OpenAI is chat-completions tool_call deltas.
	OpenAI
	// Anthropic is tool_use blocks: start, input_json_delta fragments, stop.
	Anthropic
	// Hermes is <tool_call>{"name": ..., "arguments": {...}}</tool_call>.
	Hermes
	// QwenXML is Qwen3-Coder's <function=name><parameter=key>value</parameter></function>.
	QwenXML
	// MiniMax is MiniMax-M2's <invoke name="name"><parameter name="key">value</parameter></invoke>.
	MiniMax
	// GLM45 is GLM-4.5's <tool_call>name<arg_key>key</arg_key><arg_value>value</arg_value></tool_call>.
	GLM45 Format = 7
	// Pythonic is Llama 4's [name(key="value"), ...] at the start of the response.
	Pythonic Format = 13
	// ClaudeXML is <function_calls><invoke name="name"><parameter name="key">value</parameter></invoke></function_calls>.
	ClaudeXML Format = 15
	// Auto detects each call's format from the text itself (auto.go).
	Auto Format = 16
)

// Formats whose calls carry JSON after a header of special tokens, or JSON
// bodies; the values are the API's.
const (
	// Harmony is gpt-oss's: <|channel|>commentary to=functions.name<|message|>{...}<|call|>.
	Harmony Format = 8
	// DeepSeekV3 is <｜tool▁call▁begin｜>function<｜tool▁sep｜>name, a ```json fence, <｜tool▁call▁end｜>.
	DeepSeekV3 Format = 9
	// DeepSeekV31 is <｜tool▁call▁begin｜>name<｜tool▁sep｜>{...}<｜tool▁call▁end｜>.
	DeepSeekV31 Format = 10
	// KimiK2 is <|tool_call_begin|>functions.name:0<|tool_call_argument_begin|>{...}<|tool_call_end|>.
	KimiK2 Format = 11
	// Mistral is [TOOL_CALLS][{"name": ..., "arguments": {...}}] or [TOOL_CALLS]name[ARGS]{...}.
	Mistral Format = 12
	// Llama3JSON is {"name": ..., "parameters": {...}} objects separated by ';'.
	Llama3JSON Format = 14
)

// String returns the format's name, as ParseFormat accepts it.
func (f Format) String() string {
	if info, ok := formats[f]; ok {
		return info.name
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// ParseFormat returns the format with the given name.
func ParseFormat(name string) (Format, error) {
	for f, info := range formats {
		if info.name == name {
			return f, nil
		}
	}
	return 0, fmt.Errorf("unknown stream format %q: want %s", name, FormatList())
}

// Formats lists every format, in the order of their values.
func Formats() []Format { return slices.Sorted(maps.Keys(formats)) }

// FormatList names the formats, in order, for messages and usage texts:
// "xml_tags, openai, ... or auto".
func FormatList() string {
	var names []string
	for _, f := range Formats() {
		names = append(names, formats[f].name)
	}
	last := len(names) - 1
	return strings.Join(names[:last], ", ") + " or " + names[last]
}

// Structured reports whether calls arrive as ToolDelta fragments.
func (f Format) Structured() bool { return f == OpenAI || f == Anthropic }

// EventKind says what an Event reports.
type EventKind uint8

const (
	// EventText is text outside tool calls.
	EventText EventKind = iota + 1
	// EventCallStarted announces a call: Index, ID, Name.
	EventCallStarted
	// EventParam shows a parameter growing: Text to append, or JSON, whole.
	EventParam
	// EventCallClosed delivers the complete call.
	EventCallClosed
	// EventError reports a problem that does not end the stream.
	EventError
)

// Error codes of EventError.
const (
	// CodeCallTooLarge: a call grew past Options.MaxCallBytes and was dropped.
	CodeCallTooLarge = "CALL_TOO_LARGE"
	// CodeParamTooLarge: a value grew past Options.MaxParamBytes; the call was dropped.
	CodeParamTooLarge = "PARAM_TOO_LARGE"
	// CodeCallAlreadyComplete: a fragment for a closed call was ignored.
	CodeCallAlreadyComplete = "CALL_ALREADY_COMPLETE"
	// CodeJSONTooDeep: arguments nested past Options.MaxJSONDepth; the call was dropped.
	CodeJSONTooDeep = "JSON_TOO_DEEP"
)

func callTooLargeEvent(index, limit int) Event {
	return Event{Kind: EventError, Index: index, Code: CodeCallTooLarge,
		Text: fmt.Sprintf("call %d grew past %d bytes; the call was dropped", index, limit)}
}

func paramTooLargeEvent(index int, param string, limit int) Event {
	return Event{Kind: EventError, Index: index, Code: CodeParamTooLarge,
		Text: fmt.Sprintf("parameter %q of call %d grew past %d bytes; the call was dropped", param, index, limit)}
}

func jsonTooDeepEvent(index, limit int) Event {
	return Event{Kind: EventError, Index: index, Code: CodeJSONTooDeep,
		Text: fmt.Sprintf("the arguments of call %d nest objects and arrays more than %d levels deep; the call was dropped", index, limit)}
}

// Event is one thing the parser learned.
type Event struct {
	Kind EventKind
	// Index is the model's own, or the order of appearance; -1 for text.
	Index int
	ID    string
	Name  string // as written
	// Text is the text, a string value's growth, or an error's message.
	Text  string
	Param string // as written
	JSON  string
	Call  repair.Call
	// Truncated reports a call that ended before its closing.
	Truncated bool
	Code      string
	// Offset and End are where a call of a text format starts and ends in
	// the response, in bytes: Offset on EventCallStarted, both on
	// EventCallClosed. Wrapper tokens around calls are outside.
	Offset, End int
	// Inline reports, on EventCallStarted and EventCallClosed of a text
	// format, prose before the call on its line.
	Inline bool
}

// ToolDelta is one fragment of a structured tool call (OpenAI, Anthropic).
type ToolDelta struct {
	Index     int
	ID        string
	Name      string
	Arguments string
	Done      bool // the call is complete (Anthropic content_block_stop)
}

// ToolTags describes a tool's parameters for XMLTags.
type ToolTags struct {
	// Params maps each parameter tag (any spelling) to whether it holds
	// file content, which runs on past a closing tag that no other tag
	// follows: a file holding "</content>" is kept whole.
	Params map[string]bool
}

// Options configure a Parser.
type Options struct {
	// Tools maps the names that open a call to their tool: XMLTags finds
	// calls by them; qwen_xml and minimax end a value left open only at a
	// parameter the tool declares.
	Tools map[string]ToolTags
	// MaxCallBytes, MaxParamBytes and MaxJSONDepth bound a call, a value
	// and the nesting of JSON arguments; zero means no bound.
	MaxCallBytes  int
	MaxParamBytes int
	MaxJSONDepth  int
	// Budget, when set, bounds what parsers sharing it hold of their open
	// calls together; a call it cannot grant is dropped with CALL_TOO_LARGE.
	// A parser left before End keeps what its open calls drew.
	Budget Budget
	// ParamText, when set, receives what EventParam events with Text
	// would carry, in their place and in the same order among the events:
	// a string parameter's growth. A caller shown one preview per small
	// fragment is spared building and copying an Event for each.
	ParamText func(index int, param, text string)
}

// ErrNotStructured is returned by ToolDelta for text formats.
var ErrNotStructured = errors.New("tool call deltas are for the openai and anthropic formats; this format carries calls in text")

// ErrEnded is returned when input arrives after End.
var ErrEnded = errors.New("the stream has ended")

// Parser finds tool calls in a streamed response. It is not safe for concurrent use.
type Parser struct {
	format Format
	emit   func(Event)
	ended  bool
	text   *textParser       // text formats
	calls  *structuredParser // OpenAI, Anthropic
}

// New returns a parser that reports events to emit, synchronously from
// Text, ToolDelta and End.
func New(format Format, opts Options, emit func(Event)) (*Parser, error) {
	if _, ok := formats[format]; !ok {
		return nil, fmt.Errorf("unknown stream format %d", int(format))
	}
	p := &Parser{format: format, emit: emit}
	if opts.ParamText == nil {
		opts.ParamText = func(index int, param, text string) {
			emit(Event{Kind: EventParam, Index: index, Param: param, Text: text})
		}
	}
	if format.Structured() {
		p.calls = newStructuredParser(format, opts, emit)
	} else {
		p.text = newTextParser(format, opts, emit)
	}
	return p, nil
}

// Text feeds the next piece of the model's text (for OpenAI and Anthropic,
// the message content, passed through).
func (p *Parser) Text(s string) error {
	if p.ended {
		return ErrEnded
	}
	if s == "" {
		return nil
	}
	if p.calls != nil {
		p.calls.text.write(s)
		return nil
	}
	p.text.write(s)
	return nil
}

// ToolDelta feeds a structured call fragment (OpenAI and Anthropic only).
func (p *Parser) ToolDelta(d ToolDelta) error {
	if p.ended {
		return ErrEnded
	}
	if p.calls == nil {
		return ErrNotStructured
	}
	if d.Index < 0 {
		return fmt.Errorf("tool call delta index %d is negative", d.Index)
	}
	p.calls.delta(d)
	return nil
}

// End closes the response and the calls still open: as truncated when
// lengthLimit is set or their format's end marker never came (OpenAI calls
// have none).
func (p *Parser) End(lengthLimit bool) error {
	if p.ended {
		return ErrEnded
	}
	p.ended = true
	if p.calls != nil {
		p.calls.end(lengthLimit)
	} else {
		p.text.end()
	}
	return nil
}

// IsLengthLimit reports whether a finish reason says the model hit its output limit.
func IsLengthLimit(finishReason string) bool {
	switch finishReason {
	case "length", "max_tokens", "max_output_tokens", "model_length":
		return true
	}
	return false
}
