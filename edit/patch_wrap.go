package edit

import (
	"fmt"
	"regexp"
	"strings"
)

// What surrounds a patch's operations: the heredocs and code fences models
// wrap it in, "*** Begin Patch", and "*** End Patch", whose absence is the
// mark of a patch cut off before its end.

// heredocRe matches a heredoc opener, with or without the apply_patch
// command: <<EOF, <<'EOF', <<"EOF", <<-EOF. The quotes are captured apart
// so that mismatched ones are reported, not taken as part of the word.
var heredocRe = regexp.MustCompile(`^(?:apply_patch\s*)?<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)(['"]?)\s*$`)

// wrapper is a heredoc or code fence opened around the patch.
type wrapper struct {
	what   string // "heredoc" or "code fence", for messages
	opener string // the opening line, trimmed
	closer string // the line that closes it
	line   int
}

// trim drops the blank lines around the patch.
func (p *patchParser) trim() {
	for len(p.lines) > 0 && isBlank(p.lines[0].text) {
		p.lines = p.lines[1:]
	}
	for len(p.lines) > 0 && isBlank(p.lines[len(p.lines)-1].text) {
		p.lines = p.lines[:len(p.lines)-1]
	}
}

// unwrap removes the opening lines of the heredocs and code fences around
// the patch; their closing lines are looked for after "*** End Patch".
func (p *patchParser) unwrap() error {
	p.trim()
	for len(p.lines) > 0 {
		l := p.lines[0]
		first := strings.TrimSpace(l.text)
		if n := len(p.wrappers); n > 0 && first == p.wrappers[n-1].closer {
			break // closed right away: nothing inside
		}
		w, ok, err := openWrapper(first, l.num)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		p.wrappers = append(p.wrappers, w)
		p.lines = p.lines[1:]
		p.trim()
	}
	return emptyPatch()
}

// openWrapper reads a heredoc or code fence opener.
func openWrapper(line string, num int) (wrapper, bool, error) {
	if m := heredocRe.FindStringSubmatch(line); m != nil {
		if m[1] != m[3] {
			return wrapper{}, false, &PatchError{Line: num, Msg: fmt.Sprintf(
				"the heredoc opener %q quotes its delimiter with mismatched marks: write <<'%s', <<\"%s\" or <<%s", shorten(line), m[2], m[2], m[2])}
		}
		return wrapper{what: "heredoc", opener: line, closer: m[2], line: num}, true, nil
	}
	if strings.HasPrefix(line, "```") {
		fence := line[:len(line)-len(strings.TrimLeft(line, "`"))]
		return wrapper{what: "code fence", opener: line, closer: fence, line: num}, true, nil
	}
	return wrapper{}, false, nil
}

// begin reads "*** Begin Patch", which a patch starting with a file header
// may leave out.
func (p *patchParser) begin() error {
	first := p.lines[0]
	kind, _, ok := marker(first.text)
	switch {
	case ok && kind == "begin patch":
		p.i++
		return nil
	case ok && (kind == "add file" || kind == "delete file" || kind == "update file"):
		return nil
	}
	return &PatchError{Line: first.num, Msg: fmt.Sprintf("a patch starts with \"*** Begin Patch\", not %q", shorten(first.text))}
}

// resend ends every truncation message: what the model should do.
const resend = "nothing was applied: resend the whole patch, ending with \"*** End Patch\" (a long one as several smaller patches)"

// end finds "*** End Patch" (the lines after it are not the patch's) and
// checks that every wrapper closes after it.
func (p *patchParser) end() error {
	for j := p.i; j < len(p.lines); j++ {
		if kind, _, ok := marker(p.lines[j].text); ok && kind == "end patch" {
			rest := p.lines[j+1:]
			p.lines = p.lines[:j+1]
			return p.closeWrappers(rest)
		}
	}
	if k, ok := p.unmarkedEnd(); ok {
		p.lines, p.unmarked = p.lines[:k+1], true
		return nil
	}
	last := p.lines[len(p.lines)-1]
	for _, w := range p.wrappers {
		if strings.TrimSpace(last.text) == w.closer {
			// The model finished its output but left End Patch out: a
			// patch without it may still be incomplete.
			return &PatchError{Line: last.num, Truncated: true, Msg: fmt.Sprintf(
				"the patch has no \"*** End Patch\" line before the %s closes with %q, so it may be incomplete; %s", w.what, w.closer, resend)}
		}
	}
	if last.num == p.count { // the text's last line, which has no line end
		return &PatchError{Line: last.num, Truncated: true, Msg: fmt.Sprintf(
			"the patch ends without \"*** End Patch\" and its last line, %q, has no line end, so it was probably cut off (the output may have hit a length limit); %s", shorten(last.text), resend)}
	}
	return &PatchError{Line: last.num, Truncated: true, Msg: "the patch ends without \"*** End Patch\", so it was probably cut off (the output may have hit a length limit); " + resend}
}

// closeWrappers checks that the wrappers close after End Patch, innermost
// first; other lines (a model's closing words) may come between. A wrapper
// left open with nothing closing after it is a cut-off text; one left open
// while an outer one closes is a malformed one.
func (p *patchParser) closeWrappers(rest []patchLine) error {
	var open *wrapper
	closedAfter := false
	pos := 0
	for i := len(p.wrappers) - 1; i >= 0; i-- {
		w := &p.wrappers[i]
		found := -1
		for j := pos; j < len(rest); j++ {
			if strings.TrimSpace(rest[j].text) == w.closer {
				found = j
				break
			}
		}
		switch {
		case found >= 0:
			pos = found + 1
			closedAfter = closedAfter || open != nil
		case open == nil:
			open = w
		}
	}
	if open == nil {
		return nil
	}
	if closedAfter {
		return &PatchError{Line: open.line, Msg: fmt.Sprintf(
			"the %s opened by %q is never closed: put a line %q right after \"*** End Patch\"", open.what, shorten(open.opener), open.closer)}
	}
	return &PatchError{Line: open.line, Truncated: true, Msg: fmt.Sprintf(
		"the %s opened by %q has no closing %q line after \"*** End Patch\": the text was probably cut off; nothing was applied: resend the whole patch and its closing %q line (a long one as several smaller patches)",
		open.what, shorten(open.opener), open.closer, open.closer)}
}

// unmarkedEnd reads the end of a patch written with neither "*** Begin
// Patch" nor "*** End Patch", as Codex models sometimes send one: without
// the begin marker the missing end marker is no evidence of a cut. Such a
// patch is whole when its last line (before the wrappers' closing lines,
// which must all be there) is a context line: the caller then checks that
// every chunk's context matches the file (Patch.Unmarked). It returns the
// index of that last line.
func (p *patchParser) unmarkedEnd() (int, bool) {
	for _, l := range p.lines {
		if kind, _, ok := marker(l.text); ok && kind == "begin patch" {
			return 0, false
		}
	}
	k := len(p.lines) - 1
	for i := len(p.wrappers) - 1; i >= 0; i-- {
		if k < 0 || strings.TrimSpace(p.lines[k].text) != p.wrappers[i].closer {
			return 0, false // a wrapper left open: cut off
		}
		for k--; k >= 0 && isBlank(p.lines[k].text); k-- {
		}
	}
	if k < 0 {
		return 0, false
	}
	t := p.lines[k].text
	if !strings.HasPrefix(t, " ") || isBlank(t) || isMarker(t) {
		return 0, false
	}
	return k, true
}
