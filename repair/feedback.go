package repair

import (
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
		b.WriteString(received(res))
	}
	if res.Has(CodeTruncated) {
		b.WriteString(truncationAdvice(res))
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

// received shows the parameters the call brought, in the call's own format
// (a JSON object for JSON arguments, tags for XML blocks and parameters
// split out of them) and under the names of the model's variant, as the
// usage example: the tool's parameters in its order, then the first
// unexpected ones. A parameter not sent is not shown; the problems name the
// missing ones.
func received(res *Result) string {
	t := res.Tool
	v := t.view(res.Family)
	props := propsOf(t.schema)
	var names, keys []string
	for _, p := range t.order {
		if _, ok := res.Args[p]; ok {
			names, keys = append(names, clipText(v.name(p), maxQuoted)), append(keys, p)
		}
	}
	extra, total := smallestKeys(res.Args, receivedUnexpected, func(k string) bool { _, declared := props[k]; return !declared })
	for _, k := range extra {
		names, keys = append(names, clipText(k, maxQuoted)), append(keys, k)
	}
	xml := res.Form != FormText
	var b strings.Builder
	left := total - len(extra)
	for i, k := range keys {
		var part string
		if xml {
			part = xmlPreview(names[i], res.Args[k])
		} else {
			part = jsonPreview(names[i], res.Args[k])
		}
		if i > 0 && b.Len()+len(part) > receivedBytes {
			left += len(keys) - i
			break
		}
		if i > 0 && !xml {
			b.WriteString(",")
		}
		b.WriteString(part)
	}
	var more string
	if left > 0 {
		more = fmt.Sprintf("… (%d more parameters)", left)
	}
	if xml {
		name := clipText(t.Name(), maxQuoted)
		if more != "" {
			more += "\n"
		}
		return fmt.Sprintf("Received:\n<%s>\n%s%s</%s>\n", name, b.String(), more, name)
	}
	if more != "" && len(keys) > 0 {
		more = ", " + more
	}
	return "Received: {" + b.String() + more + "}\n"
}

// jsonPreview is `"name":value` with the value cut to previewLen
// characters; a cut value is followed by its length, outside the JSON, so
// that it cannot be copied back as if whole.
func jsonPreview(name string, v any) string {
	key, _ := EncodeJSON(name)
	s, isStr := v.(string)
	if !isStr {
		raw, _ := EncodeJSON(v)
		s = string(raw)
	}
	n := utf8.RuneCountInString(s)
	cut := clipRunes(s, previewLen)
	if isStr {
		val, _ := EncodeJSON(cut)
		if len(cut) == len(s) {
			return string(key) + ":" + string(val)
		}
		return fmt.Sprintf("%s:%s… (%d characters)", key, val, n)
	}
	if len(cut) == len(s) {
		return string(key) + ":" + s
	}
	return fmt.Sprintf("%s:%s… (%d characters)", key, cut, n)
}

// xmlPreview is `<name>value</name>` and a newline, the value as an XML
// block carries it (raw text, other values as JSON) cut to previewLen
// characters, a cut one followed by its length after the closing tag.
func xmlPreview(name string, v any) string {
	s, isStr := v.(string)
	if !isStr {
		raw, _ := EncodeJSON(v)
		s = string(raw)
	}
	cut := clipRunes(s, previewLen)
	if len(cut) == len(s) {
		return fmt.Sprintf("<%s>%s</%s>\n", name, s, name)
	}
	return fmt.Sprintf("<%s>%s…</%s> (%d characters)\n", name, cut, name, utf8.RuneCountInString(s))
}

// largeCutBytes is the size of arguments from which a call cut off may
// have met the model's output limit: about 500 tokens, below any limit
// servers set. A smaller call was cut for another reason (a stop token, a
// dropped connection), and writing it in pieces would not help.
const largeCutBytes = 2 << 10

// truncationAdvice says what was cut and what to do: a large call is
// written in smaller pieces; a small one is resent whole.
func truncationAdvice(res *Result) string {
	param := ""
	for _, v := range res.Violations {
		if v.Code == CodeTruncated {
			param = v.Param
			break
		}
	}
	size := argsBytes(res.Args)
	if size >= largeCutBytes {
		return fmt.Sprintf("\nYour output was cut off after %d bytes of this tool call, before it was complete, so nothing was done. "+
			"Do not resend the same large call: write the file in smaller pieces "+
			"(create it with the first part, then add the rest with edits).\n", size)
	}
	name := clipText(res.ToolName, maxQuoted)
	var where string
	switch value, ok := res.Args[param].(string); {
	case param != "" && ok && res.Form == FormXML:
		where = fmt.Sprintf("inside the value of %s after %d bytes; its end tag </%s> never came", quote(param), len(value), clipText(param, maxQuoted))
	case param != "" && ok:
		where = fmt.Sprintf("inside the value of %s after %d bytes", quote(param), len(value))
	case res.Args != nil:
		where = fmt.Sprintf("after %d bytes of arguments, before the end of the call", size)
	default:
		where = "before the end of the call"
	}
	return fmt.Sprintf("\nYour call to %s was cut off %s, so nothing was done. "+
		"The call itself is small, so writing it in pieces would not help: resend the whole call, complete to its end.\n", name, where)
}

// argsBytes is about the size of arguments as written: their keys and
// string values' bytes, other values' JSON.
func argsBytes(v any) int {
	switch x := v.(type) {
	case string:
		return len(x)
	case map[string]any:
		n := 0
		for k, e := range x {
			n += len(k) + argsBytes(e)
		}
		return n
	case []any:
		n := 0
		for _, e := range x {
			n += argsBytes(e)
		}
		return n
	case nil:
		return 0
	}
	raw, _ := EncodeJSON(v)
	return len(raw)
}
