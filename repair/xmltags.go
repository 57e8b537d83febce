package repair

import (
	"fmt"
	"strings"
)

// A tool block's parameter tags can come written twice or left out. A
// value that holds its own element's tag where markup could be (a second
// opening tag right after the opening tag, a closing tag right before the
// real one) has two readings: the model repeated the tag, or the value
// holds it. Only an exact repetition with nothing between is read as the
// model's (reported as XML_REPAIRED); with layout between, the call is
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
		before := strings.TrimSpace(gap[:at])
		shape := fmt.Sprintf("<%s>value</%s>", tag, tag)
		if isParamElement(tag) {
			shape = fmt.Sprintf("<%s name=\"…\">value</%s>", tag, tag)
		}
		what := fmt.Sprintf("The closing tag </%s> has no opening tag", clipText(tag, maxQuoted))
		if before != "" {
			what = fmt.Sprintf("The text %s before the closing tag </%s> has no opening tag", quote(before), clipText(tag, maxQuoted))
		}
		param := tag
		if isParamElement(tag) {
			param = ""
		}
		x.refuse(param, what+", so where its value starts is lost and the call was not read. Write each parameter as "+shape+" and send the whole call again.")
		return true
	}
}

// ownTags judges a value's own element tags at its ends (see above): raw
// is the value as found between opening, the element's opening tag as
// written, and its closing tag. It returns the value with a repeated tag
// taken out, or refuses (false).
func (x *xmlParams) ownTags(name, tag, opening, raw string) (string, bool) {
	closing := "</" + tag + ">"
	opens, closes := countOpening(raw, tag), strings.Count(raw, closing)
	trimmed := strings.TrimSpace(raw)
	switch {
	case opens > closes && strings.HasPrefix(raw, opening):
		x.repaired(name, fmt.Sprintf("the opening tag %s was written twice; the second was taken out of the value", clipText(opening, maxQuoted)))
		return raw[len(opening):], true
	case opens > closes && startsWithOwn(trimmed, tag):
		x.refuse(name, fmt.Sprintf("The value of %s starts with a second opening tag <%s> that is never closed: the tag was written twice, or the value holds it, so the call was not read. Write the tag once; if the value holds the tag, close it inside the value too.", quote(name), clipText(tag, maxQuoted)))
		return "", false
	case closes > opens && strings.HasSuffix(raw, closing):
		x.repaired(name, fmt.Sprintf("the closing tag %s was written twice; the first was taken out of the value", closing))
		return raw[:len(raw)-len(closing)], true
	case closes > opens && strings.HasSuffix(trimmed, closing):
		x.refuse(name, fmt.Sprintf("The value of %s ends with a second closing tag %s that nothing in it opens: the tag was written twice, or the value holds it, so the call was not read. Write the tag once; if the value holds the tag, open it inside the value too.", quote(name), clipText(closing, maxQuoted)))
		return "", false
	}
	return raw, true
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

// startsWithOwn reports whether s opens with an opening tag of tag.
func startsWithOwn(s, tag string) bool {
	t, _, _, ok := openingTagAt(s, 0)
	return ok && t == tag
}

// countOpening counts the opening tags of tag in s.
func countOpening(s, tag string) int {
	n := 0
	for off := 0; ; {
		k := strings.Index(s[off:], "<"+tag)
		if k < 0 {
			return n
		}
		if t, _, _, ok := openingTagAt(s, off+k); ok && t == tag {
			n++
		}
		off += k + 1
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
	opens, closes := countOpening(body, tag), strings.Count(body, closing)
	switch {
	case opens > closes && strings.HasPrefix(body, opening):
		p.res.repair(CodeXMLRepaired, "", fmt.Sprintf("the opening tag %s was written twice; the second was taken out", clipText(opening, maxQuoted)))
		return body[len(opening):]
	case closes > opens && strings.HasSuffix(body, closing):
		p.res.repair(CodeXMLRepaired, "", fmt.Sprintf("the closing tag %s was written twice; the first was taken out", clipText(closing, maxQuoted)))
		return body[:len(body)-len(closing)]
	}
	return body
}
