package repair

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Mistakes is a session's consecutive-mistake state as the feedback sees it.
type Mistakes struct {
	// Consecutive counts this call when it was a mistake.
	Consecutive uint32
	Limit       uint32
}

// LimitReached reports whether the consecutive mistakes reached the limit.
func (m Mistakes) LimitReached() bool { return m.Limit > 0 && m.Consecutive >= m.Limit }

// previewLen bounds how much of a received value feedback quotes.
const previewLen = 60

// Feedback stays within MaxFeedbackBytes: each part has a budget, and what
// does not fit is counted.
const (
	MaxFeedbackBytes = 8 << 10

	problemsBytes = 3 << 10
	// MaxOutcomeBytes bounds what an execution says it did
	// (FeedbackOutcome); the problems' budget gives it up.
	MaxOutcomeBytes = 1536
	problemBytes    = 512
	receivedBytes   = 1 << 10
	// receivedUnexpected bounds the unexpected parameters Received names.
	receivedUnexpected = 10
	exampleBytes       = 3 << 10
)

// Feedback returns the tool result for an unusable call ("" for a usable
// one): what is wrong, what was received, a usage example in the call's
// format, and advice that escalates with consecutive mistakes.
func Feedback(res *Result, m Mistakes) string {
	return FeedbackOutcome(res, m, "")
}

// FeedbackOutcome is Feedback for a call that was carried out in part or
// not at all: outcome, what was done (which edits, which files written),
// replaces the opening "could not be used" line. It is clipped to
// MaxOutcomeBytes and taken from the problems' budget, so the whole stays
// within MaxFeedbackBytes.
func FeedbackOutcome(res *Result, m Mistakes, outcome string) string {
	if res.OK() {
		return ""
	}
	var b strings.Builder
	budget := problemsBytes
	if outcome == "" {
		fmt.Fprintf(&b, "Error: the %s tool call could not be used.\n", clipText(res.ToolName, maxQuoted))
	} else {
		outcome = strings.TrimSuffix(clipText(outcome, MaxOutcomeBytes), "\n") + "\n"
		b.WriteString(outcome)
		budget -= len(outcome)
	}
	writeProblems(&b, res, budget)
	if res.Tool != nil && res.Args != nil {
		fmt.Fprintf(&b, "Received: %s\n", received(res))
	}
	if res.Has(CodeTruncated) {
		b.WriteString("\nYour output was cut off before the tool call was complete, so nothing was done. " +
			"Do not resend the same large call: write the file in smaller pieces " +
			"(create it with the first part, then add the rest with edits).\n")
	}
	if res.Tool != nil {
		v := res.Tool.view(res.Family)
		if res.Form == FormText {
			fmt.Fprintf(&b, "\nCorrect usage (JSON arguments of %s):\n%s\n", res.Tool.Name(), clipExample(v.jsonBlock(v.example())))
		} else {
			fmt.Fprintf(&b, "\nCorrect usage:\n%s", clipExample(v.xmlBlock(v.example())))
		}
	}
	b.WriteString("\n")
	b.WriteString(escalation(m))
	return b.String()
}

// writeProblems lists the violations that fit budget bytes and counts the rest.
func writeProblems(b *strings.Builder, res *Result, budget int) {
	used, listed := 0, 0
	for _, v := range res.Violations {
		line := "- " + clipText(v.Message, problemBytes) + "\n"
		if listed > 0 && used+len(line) > budget {
			break
		}
		b.WriteString(line)
		used += len(line)
		listed++
	}
	if more := len(res.Violations) - listed + res.ViolationsOmitted; more > 0 {
		fmt.Fprintf(b, "- … and %d more problems not listed here. Compare your call with the usage example below, "+
			"parameter by parameter, and fix them all before calling again.\n", more)
	}
}

// clipExample cuts a usage example, which a request's tool may make huge,
// at a line end.
func clipExample(s string) string {
	if len(s) <= exampleBytes {
		return s
	}
	cut := s[:exampleBytes]
	if i := strings.LastIndexByte(cut, '\n'); i > 0 {
		cut = cut[:i+1]
	}
	return cut + "… (example shortened; see the tool definition for the rest)\n"
}

// escalation is the closing advice, firmer with each consecutive mistake.
func escalation(m Mistakes) string {
	var s string
	switch {
	case m.Consecutive >= 3:
		s = fmt.Sprintf("This is failed tool call number %d in a row. Stop retrying the same way: re-read the tool definition, "+
			"use exactly the parameter names in the usage example, and if the content is long, write a smaller piece first.", m.Consecutive)
	case m.Consecutive == 2:
		s = "This is the second failed tool call in a row. Compare your call with the usage example, parameter by parameter, before trying again."
	default:
		s = "Fix the problem above and call the tool again."
	}
	if m.LimitReached() {
		s += fmt.Sprintf(" The limit of %d consecutive mistakes has been reached.", m.Limit)
	}
	return s + "\n"
}

// received summarises the arguments: every parameter of the tool and the
// first unexpected ones.
func received(res *Result) string {
	t := res.Tool
	v := t.view(res.Family)
	props := propsOf(t.schema)
	var parts []string
	for _, p := range t.order {
		name := clipText(v.name(p), maxQuoted)
		if val, ok := res.Args[p]; ok {
			parts = append(parts, name+"="+preview(val))
		} else {
			parts = append(parts, name+"=<missing>")
		}
	}
	extra, total := smallestKeys(res.Args, receivedUnexpected, func(k string) bool { _, declared := props[k]; return !declared })
	for _, k := range extra {
		parts = append(parts, clipText(k, maxQuoted)+"="+preview(res.Args[k]))
	}
	var b strings.Builder
	for i, part := range parts {
		if i > 0 && b.Len()+len(part) > receivedBytes {
			fmt.Fprintf(&b, ", … (%d more parameters)", len(parts)-i+total-len(extra))
			return b.String()
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(part)
	}
	if total > len(extra) {
		fmt.Fprintf(&b, ", … (%d more unexpected parameters)", total-len(extra))
	}
	return b.String()
}

func preview(v any) string {
	var s string
	if str, ok := v.(string); ok {
		if str == "" {
			return "<empty>"
		}
		s = str
	} else {
		raw, _ := json.Marshal(v)
		s = string(raw)
	}
	n := utf8.RuneCountInString(s)
	if n <= previewLen {
		if _, ok := v.(string); ok {
			return fmt.Sprintf("%q", s)
		}
		return s
	}
	// The first previewLen characters, without converting the whole value.
	end := 0
	for range previewLen {
		_, size := utf8.DecodeRuneInString(s[end:])
		end += size
	}
	cut := s[:end]
	if _, ok := v.(string); ok {
		return fmt.Sprintf("%q… (%d characters)", cut, n)
	}
	return fmt.Sprintf("%s… (%d characters)", cut, n)
}
