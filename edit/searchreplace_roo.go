package edit

import (
	"fmt"
	"regexp"
	"strings"
)

// Roo Code's apply_diff dialect of SEARCH/REPLACE, and the checks that keep
// a marker out of the file.
//
//	<<<<<<< SEARCH
//	:start_line:12        (optional; also :end_line:N)
//	-------               (ends the header)
//	exact lines to find
//	=======
//	lines to put instead
//	>>>>>>> REPLACE
//
// Roo reads the hint lines and the "-------" line right after the SEARCH
// marker as the block's header, never as text to find; so does this parser,
// and the header is never written into the file. The "-------" line counts
// as the header's end after "<<<<<<< SEARCH" or after a hint line; after
// Cline's "------- SEARCH" with no hint it is the text's first line. Roo
// lets content hold a marker by escaping it: "\=======" at a line's start is
// the line "=======".

var (
	hintRe = regexp.MustCompile(`^[ \t]*:(start|end)_line:[ \t]*(.*?)[ \t]*$`)
	dashRe = regexp.MustCompile(`^-------[ \t]*$`)
)

// escapable are the line starts Roo lets content escape with a backslash.
var escapable = []string{"<<<<<<<", "=======", ">>>>>>>", "-------", ":start_line:", ":end_line:"}

// readHeader reads the hint lines and the "-------" line after the SEARCH
// marker, up to the separator.
func (b *block) readHeader(lines []string) error {
	j := b.start + 1
	for ; j < b.sep; j++ {
		l := lines[j]
		if m := hintRe.FindStringSubmatch(l); m != nil {
			v := atoiHint(m[2])
			if v == 0 {
				return b.errAt(j, fmt.Sprintf(":%s_line: needs the number of the file's line where the SEARCH text %ss, as in \":%s_line:12\", not %q; give it, or leave the line out",
					m[1], m[1], m[1], strings.TrimSpace(m[2])))
			}
			hint := &b.startLine
			if m[1] == "end" {
				hint = &b.endLine
			}
			if *hint != 0 {
				return b.errAt(j, fmt.Sprintf("a second :%s_line: line: a block's header takes one", m[1]))
			}
			*hint = v
			continue
		}
		if dashRe.MatchString(l) && (b.roo || b.startLine+b.endLine > 0) {
			b.dash = true
			j++
		}
		break
	}
	b.body = j
	if b.endLine > 0 && b.startLine > b.endLine {
		return b.errAt(b.start+1, fmt.Sprintf(":end_line:%d comes before :start_line:%d; give the lines where the SEARCH text starts and ends", b.endLine, b.startLine))
	}
	return nil
}

// check refuses a marker that would be written into the file or that
// leaves the block's meaning in doubt. Decided by position: a line of '='
// right under a text line in the REPLACE section is a Markdown underline and
// content; one at the section's start, under a blank line or under another
// one is a second separator.
func (b *block) check(lines []string) error {
	for j := b.body; j < b.sep; j++ {
		if m := hintRe.FindStringSubmatch(lines[j]); m != nil {
			return b.errAt(j, fmt.Sprintf("a :%s_line: line inside the SEARCH text: line hints go right after the SEARCH marker, before the ------- line; move it there (or write \\:%s_line: if the file holds this line)", m[1], m[1]))
		}
	}
	for j := b.sep + 1; j < b.stop; j++ {
		l := lines[j]
		if m := hintRe.FindStringSubmatch(l); m != nil {
			return b.errAt(j, fmt.Sprintf("a :%s_line: line in the REPLACE section would be written into the file: line hints go only right after the SEARCH marker; remove it (or write \\:%s_line: if the file is to hold this line)", m[1], m[1]))
		}
		if j == b.sep+1 && b.dash && dashRe.MatchString(l) && !(b.body < b.sep && dashRe.MatchString(lines[b.body])) {
			return b.errAt(j, "the REPLACE section starts with a ------- line, which ends a SEARCH header and would be written into the file; remove it")
		}
		if separatorRe.MatchString(l) && (j == b.sep+1 || strings.TrimSpace(lines[j-1]) == "" || separatorRe.MatchString(lines[j-1])) {
			return b.errAt(j, fmt.Sprintf("a second separator in the block (the first is line %d) would be written into the file: a block has one ======= line between the lines to find and the new lines; remove this one (a line of = signs that the file holds is written \\=======)", b.sep+1))
		}
	}
	return nil
}

func (b *block) errAt(j int, msg string) error {
	return &SearchReplaceError{Block: b.num, Line: j + 1, Msg: fmt.Sprintf("line %d: %s", j+1, msg)}
}

// unescape drops the backslash before an escaped marker at a line's start.
func unescape(lines []string) []string {
	var out []string
	for i, l := range lines {
		if len(l) < 2 || l[0] != '\\' {
			continue
		}
		for _, e := range escapable {
			if strings.HasPrefix(l[1:], e) {
				if out == nil {
					out = append([]string(nil), lines...)
				}
				out[i] = l[1:]
				break
			}
		}
	}
	if out == nil {
		return lines
	}
	return out
}

// WithStartLine gives the first block of a diff the start line hint line
// (1-based) when its header has none, as Roo Code applies the start line
// given beside a diff (multi-file apply_diff's <start_line>). A block
// that has its own hint keeps it; the diff is returned unchanged then, and
// when it has no block or line is not positive.
func WithStartLine(diff string, line int) string {
	if line <= 0 {
		return diff
	}
	lines := strings.SplitAfter(diff, "\n")
	for i, l := range lines {
		if !searchRe.MatchString(strings.TrimRight(l, "\r\n")) {
			continue
		}
		for _, h := range lines[i+1:] {
			m := hintRe.FindStringSubmatch(strings.TrimRight(h, "\r\n"))
			if m == nil {
				break
			}
			if m[1] == "start" {
				return diff
			}
		}
		eol := l[len(strings.TrimRight(l, "\r\n")):]
		if eol == "" {
			eol = "\n"
			lines[i] += eol
		}
		lines[i] += fmt.Sprintf(":start_line:%d", line) + eol
		return strings.Join(lines, "")
	}
	return diff
}
