package repair

// Content fixes: pure text-to-text repairs of file content and edit text.
// Each fix is conservative: it changes the text only when the evidence that
// the model garbled it is strong, and otherwise returns it untouched with
// false. The pipeline decides where each fix applies (write content, edit
// text) and records a Repair with the matching detail below.
//
// All helpers in this file are prefixed with "cf" to stay clear of names in
// the rest of the package.

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// cfExt returns the lower-cased extension of the last element of a slash- or
// backslash-separated path, with its dot ("" when there is none).
func cfExt(path string) string {
	path = strings.TrimSpace(path)
	base := path[strings.LastIndexAny(path, `/\`)+1:]
	i := strings.LastIndexByte(base, '.')
	if i < 0 {
		return ""
	}
	return strings.ToLower(base[i:])
}

// cfIsMarkdownPath reports whether a path names a Markdown file.
func cfIsMarkdownPath(path string) bool {
	switch cfExt(path) {
	case ".md", ".markdown", ".mdx":
		return true
	}
	return false
}

// cfIsMarkupPath reports whether a path names a markup file, where HTML
// entities are meant literally.
func cfIsMarkupPath(path string) bool {
	switch cfExt(path) {
	case ".html", ".htm", ".xhtml", ".xml", ".svg", ".jsx", ".tsx", ".vue", ".md", ".markdown", ".mdx":
		return true
	}
	return false
}

// ---------------------------------------------------------------------------
// Code fences

// StripCodeFence removes a Markdown code fence that wraps the whole content
// ("```lang\n...\n```", optional surrounding whitespace), unless the target
// path is Markdown (.md, .markdown, .mdx, case-insensitive). The inner text keeps its final newline
// (i.e. "```py\nx = 1\n```" → "x = 1\n"). Content with text outside the fence,
// or several fences, is left alone. A fence of 4+ backticks or ~~~ counts too (closing fence must match the opening char and be at least as long).
//
// Exact rule (CommonMark's fenced code block, restricted to the whole text):
// after trimming surrounding whitespace, the first line is an opening fence
// (3+ backticks or 3+ tildes, then an optional info string, which for
// backticks may not contain a backtick); the block closes at the first later
// line made of the same character, at least as many, indented by at most 3
// spaces, with only whitespace after; and that closing line must be the last
// line. A closing line met earlier (a second fence, prose after the fence) or
// no closing line at all leaves the content unchanged. The inner text is
// returned byte for byte, with its own line endings (CRLF stays CRLF). One
// level only: a fence inside a longer fence is left for a second call.
func stripCodeFenceOnce(content, path string) (string, bool) {
	if cfIsMarkdownPath(path) {
		return content, false
	}
	body := strings.TrimRight(strings.TrimLeft(content, " \t\r\n"), " \t\r\n")
	nl := strings.IndexByte(body, '\n')
	if nl <= 0 {
		return content, false
	}
	open := strings.TrimRight(body[:nl], " \t\r")
	ch := open[0]
	if ch != '`' && ch != '~' {
		return content, false
	}
	n := 0
	for n < len(open) && open[n] == ch {
		n++
	}
	if n < 3 || (ch == '`' && strings.IndexByte(open[n:], '`') >= 0) {
		return content, false
	}
	rest := body[nl+1:]
	for pos := 0; ; {
		end := strings.IndexByte(rest[pos:], '\n')
		if end < 0 {
			if cfIsClosingFence(rest[pos:], ch, n) {
				return rest[:pos], true
			}
			return content, false // never closed
		}
		if cfIsClosingFence(rest[pos:pos+end], ch, n) {
			return content, false // closed early: something follows the fence
		}
		pos += end + 1
	}
}

// cfIsClosingFence reports whether line closes a fence of n characters ch.
func cfIsClosingFence(line string, ch byte, n int) bool {
	line = strings.TrimRight(line, " \t\r")
	indent := 0
	for indent < len(line) && line[indent] == ' ' {
		indent++
	}
	if indent > 3 {
		return false
	}
	run := line[indent:]
	if len(run) < n {
		return false
	}
	for i := 0; i < len(run); i++ {
		if run[i] != ch {
			return false
		}
	}
	return true
}

// ---------------------------------------------------------------------------
// Escapes

// DecodeEscapes decodes literal escape sequences (\n, \t, \r, \", \\, \' and \/ ; also \uXXXX) in one
// left-to-right pass, only when the content is evidently double-escaped: it
// contains no real newline and at least one literal \n (two characters backslash, n). Anything else is returned unchanged. Unknown escapes such as \d stay as written (backslash kept).
//
// "Evidently double-escaped", exactly: the content holds no real line break
// (neither \n nor \r), and scanning it left to right as escape tokens (a
// backslash always takes the next character with it, so \\n is an escaped
// backslash followed by n, not a \n) it holds either
//
//   - at least two "structural" \n tokens, or
//   - exactly one, followed by a space or tab (indentation) or at the very end.
//
// A \n token is structural unless it lies
//
//   - inside a quoted literal: after an unescaped " or ` or ' that has not been
//     closed yet (a ' right after a letter or digit is an apostrophe, not an
//     opening quote; a run of three or more backticks is a code fence, not a
//     quote), so `print('a\nb')`, `printf("%d\n%d\n", a, b)` and
//     minified JSON such as {"a":"x\ny","b":"p\nq"} stay intact; or
//   - inside a Windows path that starts with a drive letter (C:\new\folder,
//     C:\new\net), up to the next space, quote or bracket. A drive path is a
//     letter that does not end a word, ":\", then two path-name characters
//     (letters, digits, _ . - $ ~): "if x:\n    y" is not one, but a
//     one-letter YAML key ("a:\nb: 1") is taken for one.
//
// Known limit: a one-line content that is a relative Windows path with two
// \n in it (dir\new\nodes) is decoded.
//
// \uXXXX needs four hex digits; a surrogate pair is combined; a lone
// surrogate or a short sequence stays as written. Unknown escapes (\d, \s,
// \b, \f, \x...) keep their backslash.
func DecodeEscapes(content string) (string, bool) {
	if strings.ContainsAny(content, "\n\r") || !strings.Contains(content, `\n`) || !cfEvidentlyEscaped(content) {
		return content, false
	}
	var b strings.Builder
	b.Grow(len(content))
	for i := 0; i < len(content); {
		c := content[i]
		if c != '\\' || i+1 == len(content) {
			b.WriteByte(c)
			i++
			continue
		}
		switch d := content[i+1]; d {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '"', '\\', '\'', '/':
			b.WriteByte(d)
		case 'u':
			if r, size := cfDecodeU(content[i:]); size > 0 {
				b.WriteRune(r)
				i += size
				continue
			}
			b.WriteString(`\u`)
		default:
			// Unknown escape: keep the backslash; the next character is
			// copied as it stands (byte by byte if it is multi-byte).
			b.WriteByte('\\')
			i++
			continue
		}
		i += 2
	}
	return b.String(), true
}

// cfEvidentlyEscaped applies DecodeEscapes' evidence rule to content that
// has no real line break.
func cfEvidentlyEscaped(s string) bool {
	var quote byte
	inPath := false
	structural := 0
	oneOK := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inPath && cfEndsPath(c) {
			inPath = false
		}
		if !inPath && quote == 0 && cfDriveAt(s, i) {
			inPath = true
		}
		if c == '\\' && i+1 < len(s) {
			if s[i+1] == 'n' && quote == 0 && !inPath {
				structural++
				j := i + 2
				if j == len(s) || s[j] == ' ' || s[j] == '\t' {
					oneOK = true
				}
			}
			i++
			continue
		}
		if c == '`' && strings.HasPrefix(s[i:], "```") {
			// A code fence marker, not a quote: skip the whole run.
			for i+1 < len(s) && s[i+1] == '`' {
				i++
			}
			continue
		}
		switch c {
		case '"', '`':
			if quote == 0 {
				quote = c
			} else if quote == c {
				quote = 0
			}
		case '\'':
			if quote == '\'' {
				quote = 0
			} else if quote == 0 && (i == 0 || !cfIsWordByte(s[i-1])) {
				quote = '\''
			}
		}
	}
	return structural >= 2 || (structural == 1 && oneOK)
}

// cfDriveAt reports whether a Windows drive path starts at s[i]: a letter
// that does not end a word, ":\", then two path-name characters ("C:\new",
// "d:\tmp"; not "C:\\x", which is what a double-escaped path looks like,
// nor "if x:\n    y", whose \n is followed by indentation).
func cfDriveAt(s string, i int) bool {
	if i+4 >= len(s) || !cfIsLetter(s[i]) || s[i+1] != ':' || s[i+2] != '\\' ||
		!cfIsPathByte(s[i+3]) || !cfIsPathByte(s[i+4]) {
		return false
	}
	return i == 0 || !cfIsWordByte(s[i-1])
}

// cfIsPathByte: a byte that may appear in a Windows path-name component.
func cfIsPathByte(c byte) bool {
	return cfIsWordByte(c) || c == '.' || c == '-' || c == '$' || c == '~'
}

// cfEndsPath reports whether c ends a Windows path begun with a drive letter.
func cfEndsPath(c byte) bool {
	switch c {
	case ' ', '\t', '"', '\'', '`', '(', ')', '[', ']', '{', '}', '<', '>', ',', ';', '|':
		return true
	}
	return false
}

// cfDecodeU decodes a \uXXXX sequence (or a surrogate pair of two) at the
// start of s, returning the rune and the bytes consumed; 0 when s does not
// start with a usable sequence.
func cfDecodeU(s string) (rune, int) {
	r, ok := cfHex4(s)
	if !ok {
		return 0, 0
	}
	if r >= 0xD800 && r <= 0xDBFF {
		if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
			if lo, ok := cfHex4(s[6:]); ok && lo >= 0xDC00 && lo <= 0xDFFF {
				return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), 12
			}
		}
		return 0, 0
	}
	if r >= 0xDC00 && r <= 0xDFFF {
		return 0, 0
	}
	return r, 6
}

// cfHex4 parses the four hex digits of a \uXXXX at the start of s.
func cfHex4(s string) (rune, bool) {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[2:6]) {
		v, ok := cfHexVal(c)
		if !ok {
			return 0, false
		}
		r = r<<4 | rune(v)
	}
	return r, true
}

func cfHexVal(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func cfIsLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func cfIsDigit(c byte) bool { return c >= '0' && c <= '9' }

// cfIsWordByte: ASCII letters and digits, underscore, and any byte of a
// multi-byte character (letters of other scripts).
func cfIsWordByte(c byte) bool {
	return cfIsLetter(c) || cfIsDigit(c) || c == '_' || c >= 0x80
}

// ---------------------------------------------------------------------------
// HTML entities

// DecodeHTMLEntities decodes one level of HTML entities (&lt; &gt; &amp; &quot; &#39; &apos; &nbsp; and numeric &#NN; / &#xHH;): "&amp;amp;" becomes "&amp;". Only when modelID does not
// contain "claude" (case-insensitive) and the target is not markup: never for
// .html .htm .xml .svg .jsx .tsx .vue .md (case-insensitive). Only if the content actually contains an entity.
//
// Details: the markup list also holds .xhtml, .markdown and .mdx. An empty or
// extensionless path is not markup. Entity names are case-sensitive and need
// their semicolon ("&lt" and "&LT;" stay; html.UnescapeString is not used
// because it also decodes the whole HTML5 table and legacy entities without
// a semicolon, so "?a=1&copy=2" would become "?a=1©=2"). &nbsp; and &#160;
// decode to U+00A0, as HTML means them. A numeric reference must name a
// valid, non-zero, non-surrogate code point (up to 8 digits), else it stays.
func DecodeHTMLEntities(content, modelID, path string) (string, bool) {
	if strings.Contains(strings.ToLower(modelID), "claude") || cfIsMarkupPath(path) {
		return content, false
	}
	amp := strings.IndexByte(content, '&')
	if amp < 0 {
		return content, false
	}
	var b strings.Builder
	changed := false
	last := 0
	for i := amp; i < len(content); {
		if content[i] != '&' {
			i++
			continue
		}
		dec, n := cfEntityAt(content[i:])
		if n == 0 {
			i++
			continue
		}
		if !changed {
			b.Grow(len(content))
			changed = true
		}
		b.WriteString(content[last:i])
		b.WriteString(dec)
		i += n
		last = i
	}
	if !changed {
		return content, false
	}
	b.WriteString(content[last:])
	return b.String(), true
}

var cfNamedEntities = []struct{ name, text string }{
	{"&lt;", "<"},
	{"&gt;", ">"},
	{"&amp;", "&"},
	{"&quot;", `"`},
	{"&apos;", "'"},
	{"&nbsp;", "\u00a0"},
}

// cfEntityAt decodes the entity at the start of s (which starts with '&'),
// returning its text and length; 0 when there is none.
func cfEntityAt(s string) (string, int) {
	for _, e := range cfNamedEntities {
		if strings.HasPrefix(s, e.name) {
			return e.text, len(e.name)
		}
	}
	if len(s) < 4 || s[1] != '#' {
		return "", 0
	}
	i, base := 2, rune(10)
	if s[2] == 'x' || s[2] == 'X' {
		i, base = 3, 16
	}
	start := i
	var r rune
	for i < len(s) && i-start < 8 {
		var v byte
		var ok bool
		if base == 16 {
			v, ok = cfHexVal(s[i])
		} else if cfIsDigit(s[i]) {
			v, ok = s[i]-'0', true
		}
		if !ok {
			break
		}
		r = r*base + rune(v)
		i++
	}
	if i == start || i >= len(s) || s[i] != ';' || r == 0 || !utf8.ValidRune(r) {
		return "", 0
	}
	return string(r), i + 1
}

// ---------------------------------------------------------------------------
// Replacement characters

// RemoveReplacementChars removes U+FFFD characters.
//
// Only well-formed U+FFFD (EF BF BD) is removed; bytes that are not valid
// UTF-8 are kept as they are (such input cannot arrive through JSON or
// protobuf strings). On valid UTF-8 the result is valid UTF-8 and holds no
// U+FFFD.
func RemoveReplacementChars(content string) (string, bool) {
	const rc = "\uFFFD"
	if !strings.Contains(content, rc) {
		return content, false
	}
	return strings.ReplaceAll(content, rc, ""), true
}

// ---------------------------------------------------------------------------
// Line numbers

// Line-number prefix forms.
const (
	cfFormPipe  = 1 // "  7 | code" (also "7| code", "7 |code")
	cfFormTab   = 2 // cat -n: "     7\tcode"
	cfFormArrow = 3 // Claude Code's Read: "     7→code"
	cfFormBare  = 4 // "     7": an empty line of the tab or arrow form with its separator trimmed
)

// StripLineNumbers removes read-tool line-number prefixes from edit text
// ("  7 | code", "7 | code", and the cat -n form "     7\tcode" as Claude Code's Read prints) when every non-empty line carries one
// and the numbers are consecutive. A table such as "200 | OK" (a single line whose number is not space-padded) stays; decide and document the exact single-line rule (suggestion: a single line is stripped only when its number is left-padded with spaces or uses the tab form). Empty lines inside the block may appear with just the number prefix ("  8 | " or "  8 |"): they count as carrying one.
//
// Exact rule. A prefix is optional spaces, a number of 1 to 9 digits, then
// one of:
//
//   - pipe form: optional spaces, "|", and one optional space (removed with it);
//   - tab form (cat -n): a tab. The number must be left-padded with at least
//     one space (cat -n pads to 6), or have 6+ digits, so that tab-separated
//     data such as "1\tAlice\n2\tBob" is never taken for line numbers;
//   - arrow form: "→" (U+2192), as Claude Code's Read prints;
//   - nothing: a padded number alone ("     8") is an empty line of the tab
//     or arrow form whose separator was trimmed; it never counts on its own.
//
// The text is stripped when: every line that is not blank (whitespace only)
// carries a prefix; all prefixes are of one form (bare numbers go with the
// tab or arrow form); the numbers are consecutive, a blank line without a
// prefix taking its own number (7, blank, 9), starting at 1 or more; and, if
// only one line carries a prefix, its number is left-padded with at least one
// space (the single-line rule: "  7 | code" and "     7\tcode" are stripped,
// "200 | OK" and "7 | code" stay). Blank lines are kept as they are; each
// line keeps its own ending (\r\n or \n), and a final newline is kept.
//
// Not idempotent in general: a file whose own lines start with numbers
// ("  1 |   1 | a") loses one level per call.
func stripLineNumbersOnce(text string) (string, bool) {
	if text == "" {
		return text, false
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	out := make([]string, len(lines))
	form := 0
	base := -1
	prefixed, padded := 0, false
	for i, raw := range lines {
		line, eol := cfSplitEOL(raw)
		if strings.TrimSpace(line) == "" {
			out[i] = raw
			continue
		}
		num, rest, f, pad, ok := cfLinePrefix(line)
		if !ok {
			return text, false
		}
		switch {
		case form == 0 || form == cfFormBare:
			if form == cfFormBare && f == cfFormPipe {
				return text, false
			}
			if f != cfFormBare || form == 0 {
				form = f
			}
		case f == cfFormBare:
			if form == cfFormPipe {
				return text, false
			}
		case f != form:
			return text, false
		}
		if base < 0 {
			base = num - i
			if base < 1 {
				return text, false
			}
		} else if num != base+i {
			return text, false
		}
		prefixed++
		padded = pad
		out[i] = rest + eol
	}
	if prefixed == 0 || form == cfFormBare || (prefixed == 1 && !padded) {
		return text, false
	}
	return strings.Join(out, ""), true
}

// cfSplitEOL splits a line (as produced by SplitAfter "\n") from its ending.
func cfSplitEOL(raw string) (line, eol string) {
	switch {
	case strings.HasSuffix(raw, "\r\n"):
		return raw[:len(raw)-2], "\r\n"
	case strings.HasSuffix(raw, "\n"):
		return raw[:len(raw)-1], "\n"
	}
	return raw, ""
}

// cfLinePrefix parses a line-number prefix; pad reports left padding.
func cfLinePrefix(line string) (num int, rest string, form int, pad bool, ok bool) {
	i := 0
	for i < len(line) && line[i] == ' ' {
		i++
	}
	pad = i > 0
	j := i
	for j < len(line) && cfIsDigit(line[j]) {
		num = num*10 + int(line[j]-'0')
		j++
	}
	digits := j - i
	if digits == 0 || digits > 9 {
		return 0, "", 0, false, false
	}
	r := line[j:]
	switch {
	case strings.TrimRight(r, " \t") == "":
		if !pad {
			return 0, "", 0, false, false
		}
		return num, "", cfFormBare, pad, true
	case r[0] == '\t':
		if !pad && digits < 6 {
			return 0, "", 0, false, false
		}
		return num, r[1:], cfFormTab, pad || digits >= 6, true
	case strings.HasPrefix(r, "→"):
		return num, r[len("→"):], cfFormArrow, pad, true
	}
	k := 0
	for k < len(r) && r[k] == ' ' {
		k++
	}
	if k == len(r) || r[k] != '|' {
		return 0, "", 0, false, false
	}
	rest = r[k+1:]
	if strings.HasPrefix(rest, " ") {
		rest = rest[1:]
	}
	return num, rest, cfFormPipe, pad, true
}

// ---------------------------------------------------------------------------
// Placeholders

// FindPlaceholder reports a placeholder line in full-file content: a
// comment saying the rest is unchanged or omitted ("// ... rest of the code unchanged ...",
// "# existing code here", "/* ... existing code ... */", "<!-- rest of file unchanged -->",
// "// ...existing code...", "# ... (rest of file unchanged)", "// [previous code remains the same]", "-- rest of the query unchanged").
// It returns the 1-based line number and the line (trimmed). Python's bare `...` (Ellipsis), "pass  # TODO", ordinary comments mentioning "rest" (e.g. "# rest api client") and strings containing such words outside comments are NOT placeholders. Keep false positives low: require a comment marker (//, #, /*, <!--, --, ;) at the start of the trimmed line AND a phrase meaning unchanged/omitted/existing code (e.g. "rest of", "remains the same", "unchanged", "existing code", "omitted", "same as before", "previous code") — write the rule carefully and test both sides.
//
// Exact rule. A line is a placeholder when, trimmed, it starts with a comment
// marker (//, #, /*, {/*, <!--, --, ;) and the comment's whole text is a
// placeholder phrase; a comment that goes on to say something else ("#
// existing file left unchanged if the write fails") is an ordinary comment.
// The comment text is taken without its markers and closers (*/, -->, */}),
// lower-cased and split into words; it is "decorated" when it holds an
// ellipsis ("..." or "…") or is wrapped in () or []. The words, after an
// optional leading filler (the, keep, keep the, and, and the, plus, all,
// all the, insert, your, with), must read as one of:
//
//  1. "rest of" / "remainder of" [the|this|that|your|my|our|its] up to three
//     words, then a STATUS or nothing: a placeholder when those words
//     hold a CODE NOUN ("rest of the code unchanged", "rest of file",
//     "rest of the query unchanged"), or when decorated and a status follows
//     or nothing does ("... rest of the items ..."). "rest of the string is
//     unchanged" or "handle the rest of the items" are not.
//  2. "rest" or "everything else" then a STATUS ("rest unchanged"), or
//     nothing at all when decorated ("... rest ..."). "rest api client" is
//     not.
//  3. a MODIFIER (existing, previous, remaining, original, other, unchanged,
//     earlier, prior, old, omitted, same), up to two more words ending with a
//     CODE NOUN, then: a strong STATUS ("previous code remains the same"); a
//     weak STATUS (here, goes here, below, above, continues, follows, etc)
//     unless the modifier is "other" ("existing code here"); or nothing when
//     decorated ("... existing code ...", "(existing code)") or for "keep
//     existing ..." ("keep existing code"; "keep old code" is not). A bare "# Existing code" (a
//     Markdown heading) or "# Other helpers" is not.
//  4. up to three words ending with a CODE NOUN, then a strong STATUS, when
//     decorated or when the status says omitted, not shown or for brevity
//     ("... helper functions unchanged ...", "# tests omitted for brevity").
//     "# file unchanged" alone is an ordinary comment.
//  5. a strong STATUS alone, when decorated or when it says "for brevity"
//     ("// ... same as before ...", "# omitted for brevity").
//
// A STATUS is an optional copula (is, are, remains, remain, stays, stay, left,
// kept, goes, was, were, be) then one of the strong forms (unchanged, the
// same, same, same as before, as before, omitted, omitted for brevity, for
// brevity, not shown, as is, untouched, unmodified, not modified, not changed,
// no changes, preserved, identical, elided), or "remains", "remain", "stays",
// "stay" alone (strong); or a weak form (here, goes here, below, above,
// continues, follows, etc); a trailing "here" or "etc" is ignored. CODE NOUNS
// are words such as code, file, function(s), method(s), class(es),
// implementation, logic, content(s), query, component(s), module(s),
// import(s), line(s), body, section(s), script, handler(s), helper(s),
// definition(s), markup, styles, template(s), test(s), config, routes.
//
// Code before the marker ("pass  # TODO", `x = "rest of file unchanged"`,
// "foo()  // rest unchanged") is never looked at: only whole-line comments
// count. Python's `...` has no comment marker. Lines are split on \n; \r is
// trimmed with the other whitespace.
func FindPlaceholder(content string) (line int, text string, ok bool) {
	rest := content
	for n := 1; ; n++ {
		l, tail, more := strings.Cut(rest, "\n")
		if t := strings.TrimSpace(l); t != "" && cfIsPlaceholderComment(t) {
			return n, t, true
		}
		if !more {
			return 0, "", false
		}
		rest = tail
	}
}

// cfIsPlaceholderComment applies FindPlaceholder's rule to a trimmed line.
func cfIsPlaceholderComment(t string) bool {
	body, ok := cfCommentBody(t)
	if !ok {
		return false
	}
	decorated := strings.Contains(body, "...") || strings.Contains(body, "…")
	if core := strings.Trim(body, " \t.…:-*"); len(core) >= 2 &&
		((core[0] == '(' && core[len(core)-1] == ')') || (core[0] == '[' && core[len(core)-1] == ']')) {
		decorated = true
	}
	words := strings.FieldsFunc(strings.ToLower(body), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	return cfPlaceholderWords(words, decorated)
}

// cfCommentBody returns the text of a whole-line comment without its markers.
func cfCommentBody(t string) (string, bool) {
	switch {
	case strings.HasPrefix(t, "<!--"):
		return strings.TrimSuffix(t[4:], "-->"), true
	case strings.HasPrefix(t, "{/*"):
		return strings.TrimSuffix(strings.TrimSuffix(t[3:], "}"), "*/"), true
	case strings.HasPrefix(t, "/*"):
		return strings.TrimSuffix(strings.TrimLeft(t[2:], "*!"), "*/"), true
	case strings.HasPrefix(t, "//"):
		return strings.TrimLeft(t, "/!"), true
	case strings.HasPrefix(t, "--"):
		return strings.TrimLeft(t, "-"), true
	case strings.HasPrefix(t, "#"):
		return strings.TrimLeft(t, "#"), true
	case strings.HasPrefix(t, ";"):
		return strings.TrimLeft(t, ";"), true
	}
	return "", false
}

func cfWordSet(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

var (
	cfPhFillers = [][]string{
		{"and", "the"}, {"keep", "the"}, {"all", "the"}, {"plus", "the"},
		{"the"}, {"keep"}, {"and"}, {"plus"}, {"all"}, {"insert"}, {"your"}, {"with"},
	}
	cfPhModifiers = cfWordSet("existing", "previous", "remaining", "original", "other",
		"unchanged", "earlier", "prior", "old", "omitted", "same")
	cfPhDeterminers = cfWordSet("the", "this", "that", "your", "my", "our", "its")
	cfPhNouns       = cfWordSet("code", "file", "files", "function", "functions", "method", "methods",
		"class", "classes", "implementation", "implementations", "logic", "content", "contents",
		"query", "queries", "component", "components", "module", "modules", "import", "imports",
		"line", "lines", "body", "section", "sections", "script", "handler", "handlers",
		"helper", "helpers", "definition", "definitions", "markup", "html", "css", "style", "styles",
		"template", "templates", "test", "tests", "program", "source", "config", "configuration",
		"route", "routes", "endpoints", "declarations", "statements", "stuff")
	cfPhCopulas = cfWordSet("is", "are", "remains", "remain", "stays", "stay", "left", "kept",
		"goes", "was", "were", "be")
	cfPhStrong = cfWordSet("unchanged", "the same", "same", "same as before", "as before",
		"the same as before", "omitted", "omitted for brevity", "for brevity", "not shown",
		"as is", "untouched", "unmodified", "not modified", "not changed", "no changes",
		"preserved", "identical", "elided", "unchanged as before", "unchanged from before")
	cfPhWeak = cfWordSet("here", "below", "above", "continues", "follows", "etc",
		"continues below", "follows below")
)

// Status classes returned by cfPhStatus.
const (
	cfStNone   = iota // the words are not a status
	cfStEmpty         // no words
	cfStWeak          // "here", "goes here", "below"...
	cfStStrong        // "unchanged", "remains the same", "omitted"...
)

// cfPhStatus classifies the words that end a placeholder phrase.
func cfPhStatus(w []string) int {
	if len(w) == 0 {
		return cfStEmpty
	}
	if len(w) > 1 && (w[len(w)-1] == "here" || w[len(w)-1] == "etc") {
		w = w[:len(w)-1]
	}
	if cfPhCopulas[w[0]] {
		if len(w) == 1 {
			switch w[0] {
			case "remains", "remain", "stays", "stay":
				return cfStStrong
			}
			return cfStNone
		}
		w = w[1:]
	}
	s := strings.Join(w, " ")
	switch {
	case cfPhStrong[s]:
		return cfStStrong
	case cfPhWeak[s]:
		return cfStWeak
	}
	return cfStNone
}

func cfHasPrefixWords(w, p []string) bool {
	if len(w) < len(p) {
		return false
	}
	for i := range p {
		if w[i] != p[i] {
			return false
		}
	}
	return true
}

func cfAnyNoun(w []string) bool {
	for _, x := range w {
		if cfPhNouns[x] {
			return true
		}
	}
	return false
}

// cfPlaceholderWords applies the phrase grammar of FindPlaceholder.
func cfPlaceholderWords(w []string, decorated bool) bool {
	if len(w) == 0 || len(w) > 14 {
		return false
	}
	keep := false
	for _, f := range cfPhFillers {
		if len(w) > len(f) && cfHasPrefixWords(w, f) {
			keep = f[0] == "keep"
			w = w[len(f):]
			break
		}
	}
	switch {
	case cfHasPrefixWords(w, []string{"rest", "of"}) || cfHasPrefixWords(w, []string{"remainder", "of"}):
		i := 2
		if i < len(w) && cfPhDeterminers[w[i]] {
			i++
		}
		for m := 0; m <= 3 && i+m <= len(w); m++ {
			st := cfPhStatus(w[i+m:])
			if st == cfStNone {
				continue
			}
			if cfAnyNoun(w[i:i+m]) || decorated {
				return true
			}
		}
		return false
	case w[0] == "rest" || cfHasPrefixWords(w, []string{"everything", "else"}):
		i := 1
		if w[0] == "everything" {
			i = 2
		}
		switch cfPhStatus(w[i:]) {
		case cfStStrong:
			return true
		case cfStWeak, cfStEmpty:
			return decorated
		}
		return false
	case cfPhModifiers[w[0]]:
		for m := 1; m <= 3 && 1+m <= len(w); m++ {
			if !cfPhNouns[w[m]] {
				continue
			}
			switch cfPhStatus(w[1+m:]) {
			case cfStStrong:
				return true
			case cfStWeak:
				if w[0] != "other" || decorated {
					return true
				}
			case cfStEmpty:
				if decorated || (keep && w[0] == "existing") {
					return true
				}
			}
		}
	}
	// Noun first, strong status: "... helper functions unchanged ...".
	for m := 1; m <= 3 && m <= len(w); m++ {
		if !cfPhNouns[w[m-1]] {
			continue
		}
		if cfPhStatus(w[m:]) == cfStStrong && (decorated || cfSaysOmitted(w[m:])) {
			return true
		}
	}
	// A status alone: "... unchanged ...", "omitted for brevity".
	if cfPhStatus(w) == cfStStrong && (decorated || cfHasWord(w, "brevity")) {
		return true
	}
	return false
}

func cfHasWord(w []string, x string) bool {
	for _, y := range w {
		if y == x {
			return true
		}
	}
	return false
}

// cfSaysOmitted reports whether status words say the code was left out.
func cfSaysOmitted(w []string) bool {
	return cfHasWord(w, "omitted") || cfHasWord(w, "brevity") || cfHasWord(w, "shown") || cfHasWord(w, "elided")
}

// StripLineNumbers removes read-tool line-number prefixes (see
// stripLineNumbersOnce for the rule), but only when the result carries no
// such prefixes itself: text whose every line is numbered twice is
// ambiguous (a numbered listing copied with numbers), and declining keeps
// the repair idempotent.
func StripLineNumbers(text string) (string, bool) {
	out, ok := stripLineNumbersOnce(text)
	if !ok {
		return text, false
	}
	if _, again := stripLineNumbersOnce(out); again {
		return text, false
	}
	return out, true
}

// StripCodeFence removes a code fence wrapping the whole content (see
// stripCodeFenceOnce), unless what is inside is itself one fenced block: a
// fence inside a fence is a document about code blocks, and declining keeps
// the repair idempotent.
func StripCodeFence(content, path string) (string, bool) {
	out, ok := stripCodeFenceOnce(content, path)
	if !ok {
		return content, false
	}
	if _, again := stripCodeFenceOnce(out, path); again {
		return content, false
	}
	return out, true
}
