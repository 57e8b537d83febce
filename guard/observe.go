package guard

import (
	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/repair/stream"
)

// Observer learns the outcome of every call the guard concludes, so a front
// end can count them (the server's Prometheus metrics implement it). The
// guard knows nothing of how they are counted.
//
// Methods are called on the request's goroutine, once the outcome is known
// and before it is returned, so an implementation must be cheap and safe for
// concurrent use. It must not modify or retain what it is given.
type Observer interface {
	// Verdict is called once for every concluded call: Validate,
	// ExecuteWrite and ExecuteEdit (execution violations included), and
	// each call a Stream closes. tool is the call's tool as a bounded label
	// (see ToolLabel): the canonical name of a server tool, ToolLabelCustom
	// or ToolLabelOther, never the raw name a model wrote.
	Verdict(v *Verdict, tool string)
	// Execution is called after Verdict for every call that was carried
	// out (a usable write or edit call, dry runs included), with every
	// edit's outcome and the bytes written.
	Execution(ex *Execution)
	// StreamCall is called once for every call a Stream closes, after
	// Verdict and Execution.
	StreamCall(format stream.Format, outcome StreamCallOutcome)
}

// Tool labels of calls whose tool is not one of the server's, so that what
// models write cannot grow a label's set of values.
const (
	// ToolLabelCustom is a tool defined by the request itself.
	ToolLabelCustom = "custom"
	// ToolLabelOther is a call whose tool could not be resolved.
	ToolLabelOther = "other"
)

// StreamCallOutcome is how a streamed call ended.
type StreamCallOutcome string

const (
	// StreamCallUsable is a complete call with no violation.
	StreamCallUsable StreamCallOutcome = "usable"
	// StreamCallUnusable is a complete call with a violation.
	StreamCallUnusable StreamCallOutcome = "unusable"
	// StreamCallTruncated is a call that was cut off (it is also unusable).
	StreamCallTruncated StreamCallOutcome = "truncated"
)

// NopObserver observes nothing. It is the Observer of a Guard configured
// without one.
type NopObserver struct{}

func (NopObserver) Verdict(*Verdict, string)                    {}
func (NopObserver) Execution(*Execution)                        {}
func (NopObserver) StreamCall(stream.Format, StreamCallOutcome) {}

// ToolLabel returns the label of a result's tool: its canonical name when it
// is one of the server's tools (built in or from the tools file), a fixed
// set; ToolLabelCustom for a tool the request defined (which may reuse a
// server tool's name); ToolLabelOther when no tool was resolved.
func (g *Guard) ToolLabel(res *repair.Result) string {
	switch {
	case res == nil || res.Tool == nil:
		return ToolLabelOther
	case g.reg.Tool(res.Tool.Name()) == res.Tool:
		return res.Tool.Name()
	default:
		return ToolLabelCustom
	}
}

// ObserveStreamCall reports a streamed call concluded outside a Stream,
// once Validate has returned its verdict (whose Verdict the observer has
// already had): the proxy follows OpenAI and Anthropic streams itself and
// validates each call when it is complete. truncated says the call was cut
// off; it counts as StreamCallTruncated.
func (g *Guard) ObserveStreamCall(format stream.Format, v *Verdict, truncated bool) {
	g.observer.StreamCall(format, streamCallOutcome(v, truncated || v.Has(repair.CodeTruncated)))
}

// observeVerdict reports a concluded call to the observer.
func (g *Guard) observeVerdict(v *Verdict) {
	g.observer.Verdict(v, g.ToolLabel(v.Result))
}

// streamCallOutcome classifies a closed streamed call.
func streamCallOutcome(v *Verdict, truncated bool) StreamCallOutcome {
	switch {
	case truncated:
		return StreamCallTruncated
	case v.OK():
		return StreamCallUsable
	default:
		return StreamCallUnusable
	}
}

// BytesWritten returns how many bytes of file content the execution wrote:
// zero for a dry run or when nothing applied. Writes undone by a rollback
// still count; the rollback's own writes do not.
func (ex *Execution) BytesWritten() int64 { return ex.written }
