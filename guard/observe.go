package guard

import (
	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/repair/stream"
)

// Observer learns the outcome of every call the guard concludes (the
// metrics implement it). Methods run on the request's goroutine before the
// outcome is returned: they must be cheap, safe for concurrent use, and
// neither modify nor retain what they are given.
type Observer interface {
	// Verdict sees every concluded call; tool is a bounded label
	// (ToolLabel), never the raw name a model wrote.
	Verdict(v *Verdict, tool string)
	// Execution follows Verdict for every call carried out, dry runs
	// included.
	Execution(ex *Execution)
	// StreamCall follows them for every call a Stream closes.
	StreamCall(format stream.Format, outcome StreamCallOutcome)
}

// Tool labels of calls whose tool is not one of the server's.
const (
	ToolLabelCustom = "custom"
	ToolLabelOther  = "other"
)

// StreamCallOutcome is how a streamed call ended.
type StreamCallOutcome string

// The outcomes of streamed calls; a truncated call is also unusable.
const (
	StreamCallUsable    StreamCallOutcome = "usable"
	StreamCallUnusable  StreamCallOutcome = "unusable"
	StreamCallTruncated StreamCallOutcome = "truncated"
)

// NopObserver observes nothing.
type NopObserver struct{}

func (NopObserver) Verdict(*Verdict, string)                    {}
func (NopObserver) Execution(*Execution)                        {}
func (NopObserver) StreamCall(stream.Format, StreamCallOutcome) {}

// ToolLabel returns the label of a result's tool: its name for one of the
// server's tools, ToolLabelCustom for one the request defined,
// ToolLabelOther when none was resolved.
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

// ObserveStreamCall reports a streamed call the proxy followed itself, once
// Validate has returned its verdict; truncated counts as StreamCallTruncated.
func (g *Guard) ObserveStreamCall(format stream.Format, v *Verdict, truncated bool) {
	g.observer.StreamCall(format, streamCallOutcome(v, truncated || v.Has(repair.CodeTruncated)))
}

func (g *Guard) observeVerdict(v *Verdict) {
	g.observer.Verdict(v, g.ToolLabel(v.Result))
}

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

// BytesWritten returns the bytes of file content the execution wrote: zero
// for a dry run; writes undone by a rollback count, the rollback's do not.
func (ex *Execution) BytesWritten() int64 { return ex.written }
