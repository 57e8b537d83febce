package proxy

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"slices"

	"go.uber.org/zap"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/repair/stream"
)

// A model server whose own parser missed a call leaves its markup in the
// answer's text (qwen3-coder XML, Hermes JSON, harmony...). The rescue
// reads that text with the auto stream format: a call that is complete,
// names a declared tool and is valid (repaired if need be) becomes a real
// tool call; the prose around it is kept, the markup around it dropped.
// Everything else - prose that mentions a tag, a call cut off, to a tool
// not declared, or invalid - goes out as the model wrote it, byte for
// byte. Where the calls of one text are partly rescued, the text between
// a call not rescued and its neighbours goes out as written, markup and
// all (a rescued call's closing wrapper may then stay as text).

// rescuer follows one text (a message's content, a text block) and splits
// it into what goes out: text, and rescued calls in place.
type rescuer struct {
	p      *Proxy
	rs     *request
	parser *stream.Parser
	// raw is the text from fwd on that has not gone out; pending, the
	// prose the parser found in it.
	raw     []byte
	fwd     int
	pending []byte
	out     []rescuePiece
	rescued int
	closes  int  // calls closed
	last    bool // the last call closed was rescued
	off     bool // given up: the rest goes as it came
	index   int  // the next rescued call's position in the answer
	idPfx   string
	dry     bool // observe mode: record, rescue nothing
}

// rescuePiece is text, or a rescued call.
type rescuePiece struct {
	text string
	call *rescuedCall
}

type rescuedCall struct {
	id, name string
	args     json.RawMessage
}

// newRescuer returns a rescuer for one text, or nil when the rescue is off
// or the request declared no tool it could name. firstIndex is the index
// the first rescued call takes among the answer's calls. In observe mode
// the rescuer is dry: it records what it would rescue and rescues nothing.
func (p *Proxy) newRescuer(rs *request, firstIndex int) *rescuer {
	if !p.rescuing() && !p.observingRescue() || len(rs.tools) == 0 {
		return nil
	}
	r := &rescuer{p: p, rs: rs, index: firstIndex, idPfx: "call_", dry: !p.enforce()}
	if rs.api == apiAnthropic {
		r.idPfx = "toolu_"
	}
	tags := map[string]stream.ToolTags{}
	for _, t := range rs.tools {
		params := map[string]bool{}
		if props, ok := t.Def().Parameters["properties"].(map[string]any); ok {
			for k := range props {
				params[k] = false
			}
		}
		tags[t.Name()] = stream.ToolTags{Params: params}
	}
	r.parser, _ = stream.New(stream.Auto, stream.Options{Tools: tags, MaxCallBytes: p.cfg.MaxCallBytes, MaxJSONDepth: repair.MaxJSONDepth}, r.event)
	return r
}

// write takes the next piece of the text.
func (r *rescuer) write(s string) {
	if r.off {
		r.emitText(s)
		return
	}
	r.raw = append(r.raw, s...)
	_ = r.parser.Text(s)
	if r.off {
		return
	}
	// Prose found so far that is what the text says goes out at once.
	if len(r.pending) > 0 && bytes.HasPrefix(r.raw, r.pending) {
		r.emitText(string(r.pending))
		r.advance(len(r.pending))
		r.pending = r.pending[:0]
	}
	// What is held is bounded like a streamed call.
	if len(r.raw) > r.p.cfg.MaxCallBytes {
		r.giveUp()
	}
}

// end closes the text: what is left goes as it came, or, after a rescued
// call, its prose.
func (r *rescuer) end() int {
	if r.off {
		return r.rescued
	}
	_ = r.parser.End(false)
	if r.off {
		return r.rescued
	}
	if r.last {
		r.emitText(string(r.pending))
	} else {
		r.emitText(string(r.raw))
	}
	r.raw, r.pending = nil, nil
	r.off = true
	return r.rescued
}

// take returns what may go out now.
func (r *rescuer) take() []rescuePiece {
	out := r.out
	r.out = nil
	return out
}

func (r *rescuer) event(e stream.Event) {
	if r.off {
		return
	}
	switch e.Kind {
	case stream.EventText:
		r.pending = append(r.pending, e.Text...)
	case stream.EventCallClosed:
		r.closed(e)
	case stream.EventError:
		if e.Code == stream.CodeCallQuoted {
			// Prose followed it on its line: its markup comes back as text.
			r.rs.log.Info("call in the text not rescued: quoted inside a sentence", zap.Int("call", e.Index))
			return
		}
		// A call dropped as too large: its text is not known any more.
		r.giveUp()
	}
}

func (r *rescuer) closed(e stream.Event) {
	n := e.End - r.fwd
	call := r.check(e)
	switch {
	case call != nil && (r.last || r.closes == 0):
		r.emitText(string(r.pending))
	case call != nil:
		// After a call not rescued, its text goes as written.
		r.emitText(string(r.raw[:e.Offset-r.fwd]))
	default:
		r.emitText(string(r.raw[:n]))
	}
	if call != nil {
		r.out = append(r.out, rescuePiece{call: call})
		r.rescued++
		r.index++
	}
	r.last = call != nil
	r.closes++
	r.advance(n)
	r.pending = r.pending[:0]
}

func (r *rescuer) advance(n int) {
	r.raw = r.raw[:copy(r.raw, r.raw[n:])]
	r.fwd += n
}

func (r *rescuer) giveUp() {
	r.emitText(string(r.raw))
	r.raw, r.pending, r.off = nil, nil, true
}

func (r *rescuer) emitText(s string) {
	if s == "" {
		return
	}
	if k := len(r.out) - 1; k >= 0 && r.out[k].call == nil {
		r.out[k].text += s
		return
	}
	r.out = append(r.out, rescuePiece{text: s})
}

// check returns the call a closed one becomes, or nil when it stays text:
// cut off, not a declared tool's, or not valid once repaired.
func (r *rescuer) check(e stream.Event) *rescuedCall {
	p, rs := r.p, r.rs
	if e.Truncated {
		return nil
	}
	if e.Inline {
		// Prose stands before it on its line: a model server's parser
		// miss is not the likely reading, a quote is.
		rs.log.Info("call in the text not rescued: not on a line of its own", zap.String("tool", e.Name))
		return nil
	}
	tool := p.target(rs, e.Name)
	if tool == nil {
		rs.log.Debug("call in the text not rescued: no declared tool of that name", zap.String("tool", e.Name))
		return nil
	}
	v, err := p.guard.Validate(rs.ctx, guard.ValidateRequest{
		NoSession: true, ModelID: rs.model, Call: e.Call, Tools: []repair.ToolDef{tool.Def()},
	})
	if err != nil || v.ArgumentsJSON == nil || v.Has(repair.CodeTruncated) ||
		slices.ContainsFunc(v.ViolationCodes(), func(c string) bool { return c != repair.CodeRepeatedCall }) {
		var codes []string
		if v != nil {
			codes = v.ViolationCodes()
		}
		rs.log.Info("call in the text not rescued: not valid", zap.String("tool", tool.Name()), zap.Strings("violations", codes))
		return nil
	}
	p.metrics.call(rs.api, actionRescued)
	rs.actions[actionRescued]++
	if r.dry {
		rs.log.Info("tool call observed: would be rescued from the text, sent as written", zap.Int("index", r.index),
			zap.String("tool", v.ToolName), zap.Strings("repairs", repairCodes(v.Repairs)), zap.String("mode", ModeObserve))
		r.index++
		return nil
	}
	call := &rescuedCall{id: r.idPfx + randomID(), name: v.ToolName, args: v.ArgumentsJSON}
	rs.log.Info("tool call rescued from the text", zap.Int("index", r.index), zap.String("tool", call.name),
		zap.String("id", call.id), zap.Strings("repairs", repairCodes(v.Repairs)))
	return call
}

// randomID is 24 hex digits for a rescued call's id.
func randomID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// rescueText rescues the calls of a whole text; ok is false when none was.
func (p *Proxy) rescueText(rs *request, text string, firstIndex int) ([]rescuePiece, bool) {
	r := p.newRescuer(rs, firstIndex)
	if r == nil {
		return nil, false
	}
	r.write(text)
	r.end()
	return r.take(), r.rescued > 0
}
