package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/guard/failure"
	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/repair/stream"
)

// api is the API a request speaks.
type api uint8

const (
	apiOpenAI api = iota + 1
	apiAnthropic
)

func (a api) String() string {
	if a == apiAnthropic {
		return "anthropic"
	}
	return "openai"
}

func (a api) format() stream.Format {
	if a == apiAnthropic {
		return stream.Anthropic
	}
	return stream.OpenAI
}

// request is what the proxy knows of one request while it follows the answer.
type request struct {
	ctx context.Context
	api api
	// tools: the declared tools whose schemas compiled, the only ones calls
	// resolve against.
	tools   []*repair.Tool
	repairs bool // one of the tools is a target: the answer is looked into
	model   string
	session string
	log     *zap.Logger
	actions map[action]int // calls concluded, for the access log
	// report, when set, receives every concluded call (Replay).
	report func(CallReport)
	// rec, when set, is the exchange to record once the answer is read.
	rec *exchange
}

// action is what the proxy did with a call of a target tool (the label of
// toolguard_proxy_calls_total).
type action string

const (
	actionUnchanged action = "unchanged" // valid and canonical: sent as written
	actionRepaired  action = "repaired"  // sent repaired (arguments, name or both)
	actionInvalid   action = "invalid"   // could not be made valid: sent as written (fallback)
	actionRefused   action = "refused"   // could not be made valid: an error instead (no fallback)
	actionTruncated action = "truncated" // cut off: sent as written, marked
	actionTooLarge  action = "too_large" // past the call size limit: sent as written, unchecked
	actionRescued   action = "rescued"   // found in the answer's text and sent as a tool call (rescue.go)
)

var actions = []action{actionUnchanged, actionRepaired, actionInvalid, actionRefused, actionTruncated, actionTooLarge, actionRescued}

// target returns the declared tool a call's name stands for when its calls
// are repaired (when Config.Tools is set, one of those).
func (p *Proxy) target(rs *request, name string) *repair.Tool {
	if len(rs.tools) == 0 || name == "" {
		return nil
	}
	t, _ := p.guard.Registry().Resolve(name, rs.tools)
	if t == nil || (len(p.cfg.Tools) > 0 && !slices.Contains(p.cfg.Tools, t.Name())) {
		return nil
	}
	return t
}

// callInfo is one complete call of a target tool.
type callInfo struct {
	index      int
	name, text string // as the model wrote them
	tool       *repair.Tool
	truncated  bool
	streamed   bool
}

// decision is what to send for a call.
type decision struct {
	action  action
	args    []byte // the repaired arguments when they changed
	name    string // the canonical name when it differs from the one written
	message string // why the call was refused
}

// conclude validates a complete call of a target tool, counts it (in the
// session too, if the request named one), logs it and decides what goes out.
func (p *Proxy) conclude(rs *request, c callInfo) decision {
	v, err := p.guard.Validate(rs.ctx, guard.ValidateRequest{
		SessionID: rs.session, NoSession: rs.session == "", ModelID: rs.model,
		Call:  repair.Call{Name: c.name, Form: repair.FormText, Text: c.text},
		Tools: []repair.ToolDef{c.tool.Def()}, Truncated: c.truncated,
	})
	if err != nil {
		// Only the session store can fail here: the call goes as written.
		// A store down or closing is no fault of the proxy's.
		f := failure.Classify(err)
		level := zap.WarnLevel
		if f.Kind == failure.Internal {
			level = zap.ErrorLevel
		}
		rs.log.Log(level, "tool call not checked", zap.Int("index", c.index), zap.String("tool", c.tool.Name()),
			zap.Stringer("kind", f.Kind), zap.String("reason", string(f.Reason)), zap.Error(err))
		return p.record(rs, c, nil, p.failure("the call could not be checked"))
	}
	if c.streamed {
		p.guard.ObserveStreamCall(rs.api.format(), v, c.truncated)
	}
	d := p.record(rs, c, v, p.decide(c, v))
	if !p.enforce() {
		return decision{} // observed: sent as the model wrote it
	}
	return d
}

// enforce reports whether the proxy acts on its decisions; in observe mode
// every answer goes out as the upstream sent it, and whatever would change
// it (a repair, a refusal, a truncation mark, a rescue) is only recorded.
func (p *Proxy) enforce() bool { return p.cfg.Mode != ModeObserve }

// rescuing reports whether calls found in an answer's text become tool
// calls: never in observe mode, where every answer passes as it came.
func (p *Proxy) rescuing() bool { return p.cfg.Rescue && p.enforce() }

// decide applies the strict and fallback rules to a verdict.
func (p *Proxy) decide(c callInfo, v *guard.Verdict) decision {
	if c.truncated || v.Has(repair.CodeTruncated) {
		return decision{action: actionTruncated}
	}
	// A repeated call is the session's business, not the arguments': it
	// is counted, but the call is judged without it.
	codes := slices.DeleteFunc(v.ViolationCodes(), func(c string) bool { return c == repair.CodeRepeatedCall })
	argsChanged := slices.ContainsFunc(v.Repairs, func(r repair.Repair) bool { return r.Code != repair.CodeToolAlias })
	nameChanged := v.ToolName != c.name
	usable := len(codes) == 0 || (!p.cfg.Strict && v.ArgumentsJSON != nil)
	if !usable {
		msg := fmt.Sprintf("tool call %d (%s) is not valid and could not be repaired: %s", c.index, v.ToolName, strings.Join(codes, ", "))
		if v.ViolationsOmitted > 0 {
			problems := len(v.Violations) + v.ViolationsOmitted
			if v.Has(repair.CodeRepeatedCall) {
				problems--
			}
			msg += fmt.Sprintf(" (%d problems)", problems)
		}
		return p.failure(msg)
	}
	if !argsChanged && !nameChanged {
		return decision{action: actionUnchanged}
	}
	d := decision{action: actionRepaired}
	if argsChanged {
		d.args = v.ArgumentsJSON
	}
	if nameChanged {
		d.name = v.ToolName
	}
	return d
}

// failure is the decision for a call that cannot be sent repaired.
func (p *Proxy) failure(message string) decision {
	if p.cfg.Fallback {
		return decision{action: actionInvalid}
	}
	return decision{action: actionRefused, message: message}
}

// record logs and counts a decision. The arguments' content is never
// logged above debug level.
func (p *Proxy) record(rs *request, c callInfo, v *guard.Verdict, d decision) decision {
	p.metrics.call(rs.api, d.action)
	rs.actions[d.action]++
	fields := []zap.Field{
		zap.Int("index", c.index), zap.String("tool", c.tool.Name()), zap.Bool("stream", c.streamed),
		zap.String("action", string(d.action)),
	}
	if v != nil {
		fields = append(fields, zap.Strings("repairs", repairCodes(v.Repairs)), zap.Strings("violations", v.ViolationCodes()))
		if v.ViolationsOmitted > 0 {
			fields = append(fields, zap.Int("violations_omitted", v.ViolationsOmitted))
		}
		if !v.Mistakes.NotCounted {
			fields = append(fields, zap.Uint32("consecutive_mistakes", v.Mistakes.Consecutive), zap.Bool("limit_reached", v.Mistakes.LimitReached))
		}
	}
	if d.name != "" {
		fields = append(fields, zap.String("name_written", c.name))
	}
	switch {
	case !p.enforce():
		// One line per call, whatever enforce would have done with it.
		rs.log.Info("tool call observed: sent as written", append(fields, zap.String("mode", ModeObserve))...)
	case d.action == actionRepaired:
		rs.log.Info("tool call repaired", fields...)
	case d.action == actionInvalid:
		rs.log.Info("tool call could not be repaired: sent as written", fields...)
	case d.action == actionRefused:
		rs.log.Warn("tool call could not be repaired: refused (fallback off)", fields...)
	case d.action == actionTruncated:
		rs.log.Info("tool call truncated: sent as written, not repaired", fields...)
	default:
		rs.log.Debug("tool call valid as written", fields...)
	}
	p.report(rs, c, v, d)
	if ce := rs.log.Check(zap.DebugLevel, "tool call details"); ce != nil && v != nil {
		details, _ := json.Marshal(struct {
			Repairs    []repair.Repair    `json:"repairs"`
			Violations []repair.Violation `json:"violations"`
		}{v.Repairs, v.Violations})
		ce.Write(zap.Int("index", c.index), zap.String("arguments_written", c.text),
			zap.ByteString("arguments_repaired", d.args), zap.ByteString("details", details))
	}
	return d
}

func repairCodes(rs []repair.Repair) []string {
	return uniqueCodes(rs, func(r repair.Repair) string { return r.Code })
}

// uniqueCodes returns the codes of xs, each once, in order of first use.
func uniqueCodes[T any](xs []T, code func(T) string) []string {
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		if c := code(x); !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// tooLargeReason is why a call was sent unchecked (the log's reason).
type tooLargeReason string

const (
	tooLargeCall   tooLargeReason = "max_call_bytes"  // its arguments grew past MaxCallBytes
	tooLargeHeld   tooLargeReason = "events_held"     // the events held behind open calls passed 8 times MaxCallBytes
	tooLargeBudget tooLargeReason = "max_held_bytes"  // the budget of all requests had no room for it
	tooLargeEvent  tooLargeReason = "event_too_large" // an event of the stream was too large to read
)

// tooLarge records a call sent unchecked because it grew past a bound.
func (p *Proxy) tooLarge(rs *request, index int, tool *repair.Tool, streamed bool, why tooLargeReason) {
	p.metrics.call(rs.api, actionTooLarge)
	rs.actions[actionTooLarge]++
	p.report(rs, callInfo{index: index, tool: tool, streamed: streamed}, nil, decision{action: actionTooLarge})
	rs.log.Warn("tool call too large to repair: sent as written", zap.Int("index", index), zap.String("tool", tool.Name()),
		zap.Bool("stream", streamed), zap.String("reason", string(why)), zap.Int("max_call_bytes", p.cfg.MaxCallBytes),
		zap.Int64("max_held_bytes", p.cfg.MaxHeldBytes))
}
