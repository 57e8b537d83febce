package repair

import (
	"fmt"
	"strings"
)

// A tool block's parameter tags can come written twice or left out. A
// value that holds its own element's tag where markup could be (a second
// opening tag right after the opening tag, a closing tag right before the
// real one) has two readings: the model repeated the tag, or the value
// holds it. Only an exact repetition with nothing between, which alone
// leaves the tag unclosed (or unopened), is read as the model's (reported
// as XML_REPAIRED); with layout between, or more of them, the call is
// refused. A value that opens and closes the tag as often is kept: file
// content holds markup. A closing tag with no opening tag means the
// parameter's opening tag, and so where its text started, was lost: the
// call is refused, never read without the value.

// xmlParams is what parseXMLParams read from a tool block's body.
type xmlParams struct {
	params map[string]string
	// truncated names the parameter whose closing tag never came.
	truncated string
	// repairs are the tags written twice and taken out.
	repairs []Repair
	// refusal, when set, is why the body cannot be read; refusalParam the
	// parameter it concerns, if known.
	refusal, refusalParam string
}

func (x *xmlParams) refuse(param, msg string) {
	x.refusal, x.refusalParam = msg, param
}

func (x *xmlParams) repaired(param, detail string) {
	x.repairs = append(x.repairs, Repair{Code: CodeXMLRepaired, Param: param, Detail: detail})
}

// strayClosing refuses a closing tag in the text between parameters,
// where no element is open; it reports whether it did.
func (x *xmlParams) strayClosing(gap string) bool {
	for off := 0; ; {
		k := strings.Index(gap[off:], "</")
		if k < 0 {
			return false
		}
		at := off + k
		j := at + 2
		for j < len(gap) && IsTagNameByte(gap[j], j == at+2) {
			j++
		}
		if j == at+2 || j >= len(gap) || gap[j] != '>' {
			off = at + 2
			continue
		}
		tag := gap[at+2 : j]
		param := tag
		if isParamElement(tag) {
			param = ""
		}
		x.refuse(param, LostOpeningMessage(gap[:at], gap[at:j+1]))
		return true
	}
}

// ownTags judges a value's own element tags (OwnTags): raw is the value
// as found after opening, the element's opening tag as written. It
// returns the value with a repeated tag taken out, or refuses (false).
func (x *xmlParams) ownTags(name, tag, opening, raw string) (string, bool) {
	v, repaired, refusal := OwnTags(name, raw, opening, "<"+tag, "</"+tag+">", true, true)
	switch {
	case refusal != "":
		x.refuse(name, refusal)
		return "", false
	case repaired != "":
		x.repaired(name, repaired)
	}
	return v, true
}

// OwnTags judges a tag format's value by its element's own tags (see
// above): raw is the value as found, layout included; opening its opening
// tag as written; openPrefix what any opening tag of the element starts
// with ("<parameter", "<arg_value"); closing its closing tag. text says
// the value may hold a closing tag that nothing in it opens away from its
// end (file content); elsewhere one that ends its line, where layout puts
// a value's end, means a parameter's opening tag was lost (one inside a
// line is text). exact says a tag repeated with nothing between may be taken out
// (a stream parser takes it out itself, so its previews never show it). It
// returns the value with a tag written twice taken out and the repair's
// detail, or why the call is refused.
func OwnTags(param, raw, opening, openPrefix, closing string, text, exact bool) (v, repaired, refusal string) {
	opens, closes := CountOpening(raw, openPrefix), strings.Count(raw, closing)
	trimmed := strings.TrimSpace(raw)
	switch {
	case exact && opening != "" && opens == closes+1 && strings.HasPrefix(raw, opening):
		return raw[len(opening):], fmt.Sprintf("the opening tag %s was written twice; the second was taken out of the value", clipText(opening, maxQuoted)), ""
	case opens > closes && CountOpening(trimmed[:min(len(trimmed), len(openPrefix)+1)], openPrefix) == 1:
		second := trimmed[:strings.IndexByte(trimmed, '>')+1]
		if second == "" {
			second = openPrefix
		}
		return raw, "", fmt.Sprintf("The value of %s starts with a second opening tag %s that is never closed: the tag was written twice, or the value holds it, so the call was not read. Write the tag once; if the value holds the tag, close it inside the value too.", quote(param), clipText(second, maxQuoted))
	case exact && closes == opens+1 && strings.HasSuffix(raw, closing):
		return raw[:len(raw)-len(closing)], fmt.Sprintf("the closing tag %s was written twice; the first was taken out of the value", clipText(closing, maxQuoted)), ""
	case closes > opens && strings.HasSuffix(trimmed, closing):
		return raw, "", fmt.Sprintf("The value of %s ends with a second closing tag %s that nothing in it opens: the tag was written twice, or the value holds it, so the call was not read. Write the tag once; if the value holds the tag, open it inside the value too.", quote(param), clipText(closing, maxQuoted))
	case closes > opens && !text && endsLine(raw, closing):
		return raw, "", fmt.Sprintf("The value of %s holds a closing tag %s that nothing in it opens: a parameter's opening tag was lost, or the value holds the tag, so the call was not read. Write each parameter with its opening and closing tag and send the whole call again.", quote(param), clipText(closing, maxQuoted))
	}
	return raw, "", ""
}

// LostOpeningMessage refuses a closing tag that closes no parameter:
// before is the text before it since the last value or the block's start.
func LostOpeningMessage(before, closing string) string {
	what := fmt.Sprintf("The closing tag %s closes no parameter", clipText(closing, maxQuoted))
	if before = strings.TrimSpace(before); before != "" {
		what = fmt.Sprintf("The text %s before the closing tag %s belongs to no parameter", quote(before), clipText(closing, maxQuoted))
	}
	return what + ": an opening tag is missing or malformed, so where a value starts is unknown and the call was not read. Write each parameter with its opening and its closing tag, and send the whole call again."
}

// doubledClosing passes over a closing tag written twice with nothing
// between, at body[i] after a value's closing tag, and returns where the
// body goes on.
func (x *xmlParams) doubledClosing(name, closing, body string, i int) int {
	if !strings.HasPrefix(body[i:], closing) {
		return i
	}
	x.repaired(name, fmt.Sprintf("the closing tag %s was written twice; the second was taken out", clipText(closing, maxQuoted)))
	return i + len(closing)
}

// CountOpening counts the opening tags in s that start with prefix ("<tag"
// followed by '>', '=', '/' or white space, so attributes of any kind).
func CountOpening(s, prefix string) int {
	n := 0
	for off := 0; ; {
		k := strings.Index(s[off:], prefix)
		if k < 0 {
			return n
		}
		off += k + len(prefix)
		if off < len(s) && strings.IndexByte(" \t\r\n>/=", s[off]) >= 0 {
			n++
		}
	}
}

// toolTagTwice takes out of a tool block's body its own opening tag
// written twice at its start, or its closing tag written twice at its end,
// each with nothing between, where the body does not also hold the other
// tag: the model repeated it (XML_REPAIRED). opening is the block's
// opening tag as written.
func (p *pipeline) toolTagTwice(opening, body string) string {
	tag, _, _, ok := openingTagAt(opening, 0)
	if !ok {
		return body
	}
	closing := "</" + tag + ">"
	opens, closes := CountOpening(body, "<"+tag), strings.Count(body, closing)
	switch {
	case opens == closes+1 && strings.HasPrefix(body, opening):
		p.res.repair(CodeXMLRepaired, "", fmt.Sprintf("the opening tag %s was written twice; the second was taken out", clipText(opening, maxQuoted)))
		return body[len(opening):]
	case closes == opens+1 && strings.HasSuffix(body, closing):
		p.res.repair(CodeXMLRepaired, "", fmt.Sprintf("the closing tag %s was written twice; the first was taken out", clipText(closing, maxQuoted)))
		return body[:len(body)-len(closing)]
	}
	return body
}

// endsLine reports whether closing stands in s at the end of a line.
func endsLine(s, closing string) bool {
	for off := 0; ; {
		k := strings.Index(s[off:], closing)
		if k < 0 {
			return false
		}
		off += k + len(closing)
		if rest := s[off:]; strings.HasPrefix(rest, "\n") || strings.HasPrefix(rest, "\r\n") {
			return true
		}
	}
}
