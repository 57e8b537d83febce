// Package stream parses tool calls out of a model's response while it
// streams, in the formats models really use: Cline-style XML tags, OpenAI
// tool-call deltas, Anthropic input_json_delta blocks, Hermes <tool_call>
// JSON, Qwen3-Coder <function=...> blocks and MiniMax <invoke> blocks.
//
// A Parser is fed the response piece by piece, split anywhere (inside a tag,
// a multi-byte character or a \uXXXX escape), and reports Events as soon as
// it knows something: text outside calls, a call starting, parameter values
// growing, a call closing with its complete text. Each byte is looked at a
// bounded number of times, so the cost is linear in the response, and only
// the open call is kept in memory, never the prose around it.
//
// The package finds calls; it does not judge them. A closed call comes out
// as a repair.Call exactly as the model wrote it, for repair.Registry.Validate
// to repair and validate. Parameter previews are best effort and stable (a
// key never disappears, a value never changes type, a string only grows);
// the verdict on the closed call is authoritative.
package stream

import (
	"errors"
	"fmt"

	"github.com/toolguard/toolguard/repair"
)

// Format is how a model writes tool calls.
type Format int

const (
	// XMLTags is Cline/Roo Code style: <tool><param>value</param></tool> in
	// prose, for the tools named in Options.Tools.
	XMLTags Format = iota + 1
	// OpenAI is chat-completions tool_call deltas (ToolDelta).
	OpenAI
	// Anthropic is messages API tool_use blocks: start, input_json_delta
	// fragments, stop (ToolDelta with Done).
	Anthropic
	// Hermes is <tool_call>{"name": ..., "arguments": {...}}</tool_call> in
	// prose.
	Hermes
	// QwenXML is Qwen3-Coder's <function=name><parameter=key>value
	// </parameter></function>, optionally inside <tool_call>.
	QwenXML
	// MiniMax is MiniMax-M2's <invoke name="name"><parameter name="key">
	// value</parameter></invoke>, optionally inside <minimax:tool_call>.
	MiniMax
)

var formatNames = map[Format]string{
	XMLTags: "xml_tags", OpenAI: "openai", Anthropic: "anthropic",
	Hermes: "hermes", QwenXML: "qwen_xml", MiniMax: "minimax",
}

// String returns the format's name, as ParseFormat accepts it.
func (f Format) String() string {
	if s, ok := formatNames[f]; ok {
		return s
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// ParseFormat returns the format with the given name (xml_tags, openai,
// anthropic, hermes, qwen_xml, minimax).
func ParseFormat(name string) (Format, error) {
	for f, s := range formatNames {
		if s == name {
			return f, nil
		}
	}
	return 0, fmt.Errorf("unknown stream format %q: want xml_tags, openai, anthropic, hermes, qwen_xml or minimax", name)
}

// Structured reports whether calls arrive as ToolDelta fragments (OpenAI,
// Anthropic) rather than inside the text.
func (f Format) Structured() bool { return f == OpenAI || f == Anthropic }

// EventKind says what an Event reports.
type EventKind uint8

const (
	// EventText is text outside tool calls (Event.Text).
	EventText EventKind = iota + 1
	// EventCallStarted announces a call: Index, ID, Name (as written).
	EventCallStarted
	// EventParam shows a parameter growing: Param (as written), and either
	// Text to append to a string value or JSON, a complete non-string value.
	EventParam
	// EventCallClosed delivers a call's complete text in Call. Truncated
	// reports that it ended before its closing.
	EventCallClosed
	// EventError reports a problem that does not end the stream: Code and
	// Text; Index is the call concerned, or -1.
	EventError
)

// Error codes of EventError.
const (
	// CodeCallTooLarge: a call grew past Options.MaxCallBytes; it is
	// dropped and no EventCallClosed follows for it.
	CodeCallTooLarge = "CALL_TOO_LARGE"
	// CodeParamTooLarge: a parameter value grew past
	// Options.MaxParamBytes; the call is dropped.
	CodeParamTooLarge = "PARAM_TOO_LARGE"
	// CodeCallAlreadyComplete: a fragment arrived for a call that had
	// already closed; it is ignored.
	CodeCallAlreadyComplete = "CALL_ALREADY_COMPLETE"
	// CodeJSONTooDeep: a call's JSON arguments nested deeper than
	// Options.MaxJSONDepth; the call is dropped.
	CodeJSONTooDeep = "JSON_TOO_DEEP"
)

// callTooLargeEvent reports a call dropped for growing past
// MaxCallBytes.
func callTooLargeEvent(index, limit int) Event {
	return Event{Kind: EventError, Index: index, Code: CodeCallTooLarge,
		Text: fmt.Sprintf("call %d grew past %d bytes; the call was dropped", index, limit)}
}

// paramTooLargeEvent reports a call dropped for a value growing past
// MaxParamBytes. (One builder for both, telling them apart by an empty
// param, reported a JSON member "" past its limit as the whole call past
// the parameter limit.)
func paramTooLargeEvent(index int, param string, limit int) Event {
	return Event{Kind: EventError, Index: index, Code: CodeParamTooLarge,
		Text: fmt.Sprintf("parameter %q of call %d grew past %d bytes; the call was dropped", param, index, limit)}
}

// jsonTooDeepEvent reports a call dropped for nesting its arguments
// deeper than MaxJSONDepth.
func jsonTooDeepEvent(index, limit int) Event {
	return Event{Kind: EventError, Index: index, Code: CodeJSONTooDeep,
		Text: fmt.Sprintf("the arguments of call %d nest objects and arrays more than %d levels deep; the call was dropped", index, limit)}
}

// Event is one thing the parser learned.
type Event struct {
	Kind EventKind
	// Index is the call's index: the model's own for OpenAI and Anthropic,
	// the order of appearance otherwise. -1 for text.
	Index int
	// ID is the call id the model gave, if any.
	ID string
	// Name is the tool name as written (EventCallStarted, EventCallClosed).
	Name string
	// Text is the text (EventText), the growth of a string value
	// (EventParam) or the message (EventError).
	Text string
	// Param is the parameter name as written (EventParam).
	Param string
	// JSON is a complete non-string parameter value (EventParam).
	JSON string
	// Call is the complete call (EventCallClosed).
	Call repair.Call
	// Truncated reports a call that ended before its closing
	// (EventCallClosed).
	Truncated bool
	// Code is the error code (EventError).
	Code string
}

// ToolDelta is one fragment of a structured tool call (OpenAI, Anthropic).
type ToolDelta struct {
	Index     int
	ID        string
	Name      string
	Arguments string
	// Done marks the call complete (Anthropic content_block_stop).
	Done bool
}

// ToolTags describes a tool for XMLTags: the tag that opens its calls and
// the tags of its parameters.
type ToolTags struct {
	// Params maps each parameter tag (canonical names and aliases) to
	// whether it holds file content: a content value runs on past a closing
	// tag that is not followed by another parameter or the tool's closing
	// tag, so a file holding "</content>" is kept whole.
	Params map[string]bool
}

// Options configure a Parser.
type Options struct {
	// Tools maps the tags that open a call to their tool, for XMLTags.
	Tools map[string]ToolTags
	// MaxCallBytes bounds one call's text; MaxParamBytes one parameter
	// value. Zero means no bound.
	MaxCallBytes  int
	MaxParamBytes int
	// MaxJSONDepth bounds how deeply objects and arrays nest in a call's
	// JSON arguments (OpenAI, Anthropic, Hermes, whose body may nest one
	// level more as it wraps them). Zero means no bound.
	MaxJSONDepth int

	// Budget, when set, is drawn on for the text the parser holds of its
	// open calls, so that parsers sharing it hold at most its bytes
	// together. A call whose growth it cannot grant is dropped with
	// CALL_TOO_LARGE. A call gives its bytes back when it closes or is
	// dropped; a parser left before End keeps what its open calls drew.
	Budget Budget
}

// ErrNotStructured is returned by ToolDelta for formats whose calls arrive
// in the text.
var ErrNotStructured = errors.New("tool call deltas are for the openai and anthropic formats; this format carries calls in text")

// ErrEnded is returned when input arrives after End.
var ErrEnded = errors.New("the stream has ended")

// Parser finds tool calls in a streamed response. It is not safe for
// concurrent use.
type Parser struct {
	format Format
	emit   func(Event)
	ended  bool
	text   *textParser       // text formats
	calls  *structuredParser // OpenAI, Anthropic
}

// New returns a parser for format that reports events to emit. emit is
// called synchronously from Text, ToolDelta and End; the events' strings
// are its to keep.
func New(format Format, opts Options, emit func(Event)) (*Parser, error) {
	if _, ok := formatNames[format]; !ok {
		return nil, fmt.Errorf("unknown stream format %d", int(format))
	}
	p := &Parser{format: format, emit: emit}
	if format.Structured() {
		p.calls = newStructuredParser(format, opts, emit)
	} else {
		p.text = newTextParser(format, opts, emit)
	}
	return p, nil
}

// Text feeds the next piece of the model's text: the whole output for text
// formats, the message content for OpenAI and Anthropic (passed through as
// EventText).
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

// End closes the response. Calls still open are closed: as truncated when
// lengthLimit is set (the model hit its output limit) or when their format
// marks a call's end and it never came; OpenAI calls, which have no end
// marker, are otherwise complete. Held-back text is flushed.
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

// IsLengthLimit reports whether a finish reason says the model hit its
// output limit ("length" in OpenAI's API, "max_tokens" in Anthropic's).
func IsLengthLimit(finishReason string) bool {
	switch finishReason {
	case "length", "max_tokens", "max_output_tokens", "model_length":
		return true
	}
	return false
}
