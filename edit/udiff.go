package edit

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Unified diffs, as git and Aider's udiff edit format write them:
//
//	diff --git a/src/m.go b/src/m.go     (optional, with git's extended headers)
//	--- a/src/m.go                       (/dev/null: the file is created)
//	+++ b/src/m.go                       (/dev/null: the file is deleted)
//	@@ -12,4 +12,5 @@ func f() {       (Aider: "@@ ... @@", no numbers)
//	 context line
//	-removed line
//	+added line
//	\ No newline at end of file
//
// A hunk is an edit: its context and removed lines are the old text, its
// context and added lines the new; ApplyChunks finds it with the ladder.
// The header's old start line is a hint (PatchChunk.StartLine), never an
// address: models miscount, and files drift. Its counts, when given, must
// match the hunk's lines: a text that ends before they are reached was cut
// off (TRUNCATED), a hunk with other counts is malformed. A hunk with
// neither context nor removed lines on an existing file says nothing about
// where its lines go, and is refused rather than placed by its numbers.

// hunkHeaderRe reads "@@ -l,n +l,n @@ heading"; the counts default to 1.
var hunkHeaderRe = regexp.MustCompile(`^@@+\s*-(\d+)(?:,(\d+))?\s+\+(\d+)(?:,(\d+))?\s*@@+`)

// LooksLikeUnifiedDiff tells whether a patch text is a unified diff: its
// first line that is neither blank nor a heredoc or code fence opener is
// "diff --git" (or another "diff -" command line), "--- PATH" followed by
// "+++ PATH", by a hunk header (the "+++" line left out) or by nothing (a
// cut diff), or a hunk header. An apply_patch
// text in the "*** Begin Patch" format starts otherwise.
func LooksLikeUnifiedDiff(s string) bool {
	var first string
	for line := range strings.Lines(s) {
		t := strings.TrimRight(line, "\r\n")
		if first == "" {
			switch u := strings.TrimSpace(t); {
			case u == "":
				continue
			case strings.HasPrefix(u, "```") || heredocRe.MatchString(u):
				continue
			}
			first = t
			switch {
			case strings.HasPrefix(t, "diff --git ") || strings.HasPrefix(t, "diff -"):
				return true
			case strings.HasPrefix(t, "@@"):
				return true
			case !strings.HasPrefix(t, "--- "):
				return false
			}
			continue
		}
		return strings.HasPrefix(t, "+++ ") || strings.HasPrefix(t, "@@")
	}
	return strings.HasPrefix(first, "--- ")
}

// udiffParser reads a unified diff's lines; i is the next line to read.
type udiffParser struct {
	lines    []patchLine
	i        int
	count    int       // lines in the text given
	lastNL   bool      // the text's last line has its line end
	wrappers []wrapper // code fences and heredocs around the diff, outermost first
	out      *Patch
	updates  map[string]int // an Update's index in out.Ops, to merge the files Aider repeats per hunk
}

// fileHead is one file's headers.
type fileHead struct {
	oldPath, newPath string // "" for /dev/null
	line             int    // of the first header line
	created, deleted bool   // git's "new file mode", "deleted file mode"
	renameFrom       string
	renameTo         string
	gitOld, gitNew   string // from "diff --git a/X b/Y", when it can be split
	git              bool
}

// ParseUnifiedDiff parses a unified diff into a Patch of ADD, DELETE and
// UPDATE operations (Patch.Unified set). Hunks of one file given under
// several headers, as Aider writes them, are one UPDATE.
func ParseUnifiedDiff(diff string) (*Patch, error) {
	norm := strings.ReplaceAll(diff, "\r\n", "\n")
	raw := strings.Split(norm, "\n")
	p := &udiffParser{lastNL: strings.HasSuffix(norm, "\n"), out: &Patch{Unified: true}, updates: map[string]int{}}
	if p.lastNL {
		raw = raw[:len(raw)-1] // the last line end ends no line
	}
	p.count = len(raw)
	p.lines = make([]patchLine, len(raw))
	for i, l := range raw {
		p.lines[i] = patchLine{l, i + 1}
	}
	if err := p.unwrap(); err != nil {
		return nil, err
	}
	for {
		more, err := p.file()
		if err != nil {
			return nil, err
		}
		if !more {
			break
		}
	}
	if len(p.out.Ops) == 0 {
		return nil, &PatchError{Msg: "the diff names no file: start it with \"--- a/PATH\" and \"+++ b/PATH\", then its \"@@\" hunks"}
	}
	return p.out, p.closeWrappers()
}

// unwrap skips the blank lines and the code fence and heredoc openers
// before the diff.
func (p *udiffParser) unwrap() error {
	for p.i < len(p.lines) {
		t := strings.TrimSpace(p.lines[p.i].text)
		if t == "" {
			p.i++
			continue
		}
		w, ok, err := openWrapper(t, p.lines[p.i].num)
		if err != nil || !ok {
			return err
		}
		p.wrappers = append(p.wrappers, w)
		p.i++
	}
	return nil
}

// closer is the line that ends the diff, "" with no wrapper.
func (p *udiffParser) closer() string {
	if n := len(p.wrappers); n > 0 {
		return p.wrappers[n-1].closer
	}
	return ""
}

func (p *udiffParser) isCloser(t string) bool {
	c := p.closer()
	return c != "" && strings.TrimSpace(t) == c
}

// closeWrappers checks that the wrappers close, innermost first, after the
// diff: one left open means the text was cut off.
func (p *udiffParser) closeWrappers() error {
	for k := len(p.wrappers) - 1; k >= 0; k-- {
		w := p.wrappers[k]
		for p.i < len(p.lines) && strings.TrimSpace(p.lines[p.i].text) != w.closer {
			p.i++
		}
		if p.i >= len(p.lines) {
			return &PatchError{Line: w.line, Truncated: true, Msg: fmt.Sprintf(
				"the %s opened by %q never closes, so the diff was probably cut off (the output may have hit a length limit); %s", w.what, shorten(w.opener), resendDiff)}
		}
		p.i++
	}
	return nil
}

// resendDiff ends every truncation message: what the model should do.
const resendDiff = "nothing was applied: resend the whole diff (a long one as several smaller ones)"

// truncated is the error of a text that ends where more must follow.
func (p *udiffParser) truncated(what string) error {
	last := p.lines[len(p.lines)-1]
	msg := fmt.Sprintf("the diff ends %s, so it was probably cut off (the output may have hit a length limit); %s", what, resendDiff)
	if !p.lastNL {
		msg = fmt.Sprintf("the diff ends %s and its last line, %q, has no line end, so it was probably cut off (the output may have hit a length limit); %s", what, shorten(last.text), resendDiff)
	}
	return &PatchError{Line: last.num, Truncated: true, Msg: msg}
}

// atEnd skips blank lines and tells whether the diff is over: the end of
// the text, or its wrapper's closing line.
func (p *udiffParser) atEnd() bool {
	for p.i < len(p.lines) && isBlank(p.lines[p.i].text) {
		p.i++
	}
	return p.i >= len(p.lines) || p.isCloser(p.lines[p.i].text)
}

// isFileHeader tells whether line i starts a file: "diff " or "--- "
// followed by "+++ " (a removed line "-- x" followed by an added "++ y" is
// read as a header only when a hunk header or the end follows).
func (p *udiffParser) isFileHeader(i int) bool {
	t := p.lines[i].text
	if strings.HasPrefix(t, "diff --git ") || strings.HasPrefix(t, "diff -") {
		return true
	}
	if !strings.HasPrefix(t, "--- ") || i+1 >= len(p.lines) || !strings.HasPrefix(p.lines[i+1].text, "+++ ") {
		return false
	}
	return i+2 >= len(p.lines) || strings.HasPrefix(p.lines[i+2].text, "@@") || p.isCloser(p.lines[i+2].text)
}

// file reads one file's headers and hunks; more is false at the end.
func (p *udiffParser) file() (more bool, err error) {
	if p.atEnd() {
		return false, nil
	}
	h, err := p.headers()
	if err != nil {
		return false, err
	}
	var hunks []PatchChunk
	for p.i < len(p.lines) && strings.HasPrefix(p.lines[p.i].text, "@@") {
		c, err := p.hunk(h, len(hunks)+1)
		if err != nil {
			return false, err
		}
		if len(c.OldLines) > 0 || len(c.NewLines) > 0 {
			hunks = append(hunks, c)
		}
		for p.i < len(p.lines) && isBlank(p.lines[p.i].text) {
			p.i++
		}
	}
	if p.i < len(p.lines) && !p.isCloser(p.lines[p.i].text) && !p.isFileHeader(p.i) {
		l := p.lines[p.i]
		return false, &PatchError{Line: l.num, Msg: fmt.Sprintf("expected a hunk header (\"@@ -12,4 +12,5 @@\" or \"@@ ... @@\") or the next file's \"--- a/PATH\", not %q", shorten(l.text))}
	}
	return true, p.addOp(h, hunks)
}

// headers reads "diff --git", git's extended headers and "---"/"+++".
func (p *udiffParser) headers() (*fileHead, error) {
	l := p.lines[p.i]
	h := &fileHead{line: l.num}
	if strings.HasPrefix(l.text, "diff ") {
		if h.git = strings.HasPrefix(l.text, "diff --git "); h.git {
			h.gitOld, h.gitNew = splitGitPaths(strings.TrimPrefix(l.text, "diff --git "))
		}
		p.i++
		if err := p.extended(h); err != nil {
			return nil, err
		}
		if p.atEnd() || strings.HasPrefix(p.lines[p.i].text, "diff ") {
			if h.noHunks() {
				return h, nil
			}
			if p.i >= len(p.lines) {
				return nil, p.truncated(fmt.Sprintf("after the file header %q, before its \"--- a/PATH\" and \"+++ b/PATH\" lines", shorten(l.text)))
			}
			return nil, &PatchError{Line: l.num, Msg: fmt.Sprintf("the file header %q has no \"--- a/PATH\" and \"+++ b/PATH\" lines and no hunk", shorten(l.text))}
		}
	}
	l = p.lines[p.i]
	switch {
	case strings.HasPrefix(l.text, "--- "):
		h.oldPath = headerPath(l.text[4:])
		p.i++
		if p.i >= len(p.lines) {
			return nil, p.truncated(fmt.Sprintf("after %q, before its \"+++ b/PATH\" line", shorten(l.text)))
		}
		n := p.lines[p.i]
		if !strings.HasPrefix(n.text, "+++ ") {
			return nil, &PatchError{Line: n.num, Msg: fmt.Sprintf("%q must be followed by the new file's \"+++ b/PATH\" line, not %q", shorten(l.text), shorten(n.text))}
		}
		h.newPath = headerPath(n.text[4:])
		p.i++
		stripPrefixes(h)
	case strings.HasPrefix(l.text, "@@") && h.git:
		h.oldPath, h.newPath = h.gitOld, h.gitNew
	case strings.HasPrefix(l.text, "@@"):
		return nil, &PatchError{Line: l.num, Msg: "the hunk names no file: put \"--- a/PATH\" and \"+++ b/PATH\" lines before its \"@@\" line"}
	default:
		return nil, &PatchError{Line: l.num, Msg: fmt.Sprintf("expected the file header \"--- a/PATH\", not %q", shorten(l.text))}
	}
	if h.oldPath == "" && h.newPath == "" {
		return nil, &PatchError{Line: h.line, Msg: "the file header names no file (both sides are /dev/null, or the paths cannot be read)"}
	}
	if p.atEnd() {
		switch {
		case h.noHunks():
		case p.i >= len(p.lines):
			return nil, p.truncated(fmt.Sprintf("after the file header of %s, before its first hunk", h.name()))
		default:
			return nil, &PatchError{Line: h.line, Msg: fmt.Sprintf("the file header of %s has no hunk: follow it with \"@@\" hunks", h.name())}
		}
	} else if !strings.HasPrefix(p.lines[p.i].text, "@@") && !h.noHunks() {
		return nil, &PatchError{Line: p.lines[p.i].num, Msg: fmt.Sprintf("the file header of %s must be followed by its \"@@\" hunks, not %q", h.name(), shorten(p.lines[p.i].text))}
	}
	return h, nil
}

// noHunks tells whether git's headers alone say what happens to the file:
// an empty file created or deleted, or a file renamed unchanged.
func (h *fileHead) noHunks() bool {
	return h.git && (h.created || h.deleted || h.renameTo != "")
}

// extended reads git's extended header lines.
func (p *udiffParser) extended(h *fileHead) error {
	for ; p.i < len(p.lines); p.i++ {
		l := p.lines[p.i]
		t := l.text
		switch {
		case strings.HasPrefix(t, "new file mode"):
			h.created = true
		case strings.HasPrefix(t, "deleted file mode"):
			h.deleted = true
		case strings.HasPrefix(t, "rename from "):
			h.renameFrom = headerPath(strings.TrimPrefix(t, "rename from "))
		case strings.HasPrefix(t, "rename to "):
			h.renameTo = headerPath(strings.TrimPrefix(t, "rename to "))
		case strings.HasPrefix(t, "index "), strings.HasPrefix(t, "old mode"), strings.HasPrefix(t, "new mode"),
			strings.HasPrefix(t, "similarity index"), strings.HasPrefix(t, "dissimilarity index"):
			// Modes and blob ids: the guard writes contents only.
		case strings.HasPrefix(t, "copy from "), strings.HasPrefix(t, "copy to "):
			return &PatchError{Line: l.num, Msg: "a copy (\"copy from\"/\"copy to\") is not supported: create the new file from /dev/null with its whole content"}
		case strings.HasPrefix(t, "Binary files ") || strings.HasPrefix(t, "GIT binary patch"):
			return &PatchError{Line: l.num, Msg: "binary diffs are not supported: only text files are changed by a diff"}
		default:
			return nil
		}
	}
	return nil
}

func (h *fileHead) name() string {
	switch {
	case h.newPath != "":
		return h.newPath
	case h.oldPath != "":
		return h.oldPath
	case h.renameTo != "":
		return h.renameTo
	}
	return h.gitNew
}

// headerPath reads a header's path: up to a tab (diff -u writes the time
// after one), unquoted when git quoted it, "" for /dev/null.
func headerPath(s string) string {
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, `"`) {
		if u, err := strconv.Unquote(s); err == nil {
			s = u
		}
	}
	if s == "/dev/null" {
		return ""
	}
	return s
}

// stripPrefixes drops git's "a/" and "b/" when both sides have them (or the
// other is /dev/null): Aider and diff -u name paths without them.
func stripPrefixes(h *fileHead) {
	a := h.oldPath == "" || strings.HasPrefix(h.oldPath, "a/")
	b := h.newPath == "" || strings.HasPrefix(h.newPath, "b/")
	if a && b {
		h.oldPath = strings.TrimPrefix(h.oldPath, "a/")
		h.newPath = strings.TrimPrefix(h.newPath, "b/")
	}
}

// splitGitPaths splits "a/X b/X" (the same name twice, as git writes it for
// a file that is not renamed); "" when it cannot tell where X ends.
func splitGitPaths(s string) (string, string) {
	s = strings.TrimSpace(s)
	if len(s)%2 == 1 {
		n := (len(s) - 1) / 2
		o, w := s[:n], s[n+1:]
		if s[n] == ' ' && strings.HasPrefix(o, "a/") && strings.HasPrefix(w, "b/") && o[2:] == w[2:] {
			return o[2:], w[2:]
		}
	}
	return "", ""
}

// hunkHead is a hunk header's numbers; counted is false for "@@ ... @@".
type hunkHead struct {
	oldStart, oldN, newStart, newN int
	counted                        bool
}

// header reads a hunk header line.
func (p *udiffParser) header(l patchLine) (hunkHead, error) {
	m := hunkHeaderRe.FindStringSubmatch(l.text)
	if m == nil {
		rest := strings.TrimSpace(strings.TrimLeft(l.text, "@"))
		if strings.HasPrefix(rest, "-") && len(rest) > 1 && rest[1] >= '0' && rest[1] <= '9' {
			if l.num == p.count && !p.lastNL {
				return hunkHead{}, p.truncated("inside a hunk header")
			}
			return hunkHead{}, &PatchError{Line: l.num, Msg: fmt.Sprintf("the hunk header %q is malformed: write \"@@ -OLD_START,OLD_COUNT +NEW_START,NEW_COUNT @@\", or \"@@ ... @@\" without numbers", shorten(l.text))}
		}
		return hunkHead{}, nil
	}
	num := func(s string, def int) (int, error) {
		if s == "" {
			return def, nil
		}
		return strconv.Atoi(s)
	}
	var h hunkHead
	var errs [4]error
	h.oldStart, errs[0] = num(m[1], 0)
	h.oldN, errs[1] = num(m[2], 1)
	h.newStart, errs[2] = num(m[3], 0)
	h.newN, errs[3] = num(m[4], 1)
	for _, err := range errs {
		if err != nil {
			return hunkHead{}, &PatchError{Line: l.num, Msg: fmt.Sprintf("the hunk header %q has a number too large", shorten(l.text))}
		}
	}
	h.counted = true
	return h, nil
}

// hunkLine is one line of a hunk's body: its prefix (' ', '-', '+' or '\\') and text.
type hunkLine struct {
	kind byte
	text string
	num  int
}

// body reads a hunk's lines up to the next hunk or file header, the
// wrapper's closing line or the end. An empty line is a blank context line
// (editors strip the space); a line with no prefix is a context line whose
// space the model dropped, as in apply_patch's format.
func (p *udiffParser) body() []hunkLine {
	var out []hunkLine
	for ; p.i < len(p.lines); p.i++ {
		l := p.lines[p.i]
		t := l.text
		if strings.HasPrefix(t, "@@") || p.isCloser(t) || p.isFileHeader(p.i) {
			break
		}
		switch {
		case t == "":
			out = append(out, hunkLine{' ', "", l.num})
		case t[0] == ' ' || t[0] == '-' || t[0] == '+' || t[0] == '\\':
			out = append(out, hunkLine{t[0], t[1:], l.num})
		default:
			out = append(out, hunkLine{' ', t, l.num})
		}
	}
	return out
}

// hunk reads one hunk of a file.
func (p *udiffParser) hunk(f *fileHead, n int) (PatchChunk, error) {
	hl := p.lines[p.i]
	h, err := p.header(hl)
	if err != nil {
		return PatchChunk{}, err
	}
	p.i++
	lines := p.body()
	where := fmt.Sprintf("hunk %d of %s (line %d)", n, f.name(), hl.num)
	oldN, newN, blanks := 0, 0, 0
	for _, l := range lines {
		switch l.kind {
		case ' ':
			oldN++
			newN++
		case '-':
			oldN++
		case '+':
			newN++
		}
		if l.kind == ' ' && l.text == "" && isBlank(p.lines[l.num-1].text) {
			blanks++
		} else if l.kind != '\\' {
			blanks = 0
		}
	}
	// Blank lines at the end: the hunk's blank context lines, as many as
	// its counts need, else separators.
	drop := blanks
	if h.counted {
		for j := 0; j <= blanks; j++ {
			if oldN-j == h.oldN && newN-j == h.newN {
				drop = j
				break
			}
		}
	}
	lines = dropTrailingBlanks(lines, drop)
	oldN, newN = oldN-drop, newN-drop
	if h.counted && (oldN != h.oldN || newN != h.newN) {
		if oldN <= h.oldN && newN <= h.newN && p.i >= len(p.lines) {
			return PatchChunk{}, p.truncated(fmt.Sprintf("inside %s: its header %q counts %d old and %d new lines, and only %d and %d arrived",
				where, shorten(hl.text), h.oldN, h.newN, oldN, newN))
		}
		return PatchChunk{}, &PatchError{Line: hl.num, Msg: fmt.Sprintf(
			"%s: its header %q counts %d old and %d new lines, but the hunk has %d old (' ' and '-') and %d new (' ' and '+') lines; correct the counts, or write \"@@ ... @@\" without numbers",
			where, shorten(hl.text), h.oldN, h.newN, oldN, newN)}
	}
	c := PatchChunk{Line: hl.num, Unified: true}
	if h.counted {
		c.StartLine = h.oldStart
	}
	if err := fillChunk(&c, lines, where); err != nil {
		return PatchChunk{}, err
	}
	if len(lines) == 0 && p.i >= len(p.lines) {
		return PatchChunk{}, p.truncated(fmt.Sprintf("right after the header of %s", where))
	}
	return c, p.checkHunk(f, h, c, where)
}

func dropTrailingBlanks(lines []hunkLine, n int) []hunkLine {
	for k := len(lines) - 1; k >= 0 && n > 0; k-- {
		if lines[k].kind == '\\' {
			continue
		}
		lines = append(lines[:k], lines[k+1:]...)
		n--
	}
	return lines
}

// fillChunk sets a chunk's old and new lines and its end-of-file markers.
func fillChunk(c *PatchChunk, lines []hunkLine, where string) error {
	prev := byte(0)
	for i, l := range lines {
		switch l.kind {
		case ' ':
			c.OldLines = append(c.OldLines, l.text)
			c.NewLines = append(c.NewLines, l.text)
		case '-':
			c.OldLines = append(c.OldLines, l.text)
		case '+':
			c.NewLines = append(c.NewLines, l.text)
		case '\\':
			if prev == 0 || prev == '\\' {
				return &PatchError{Line: l.num, Msg: fmt.Sprintf("%s: %q follows no line of the hunk", where, shorten("\\"+l.text))}
			}
			// It marks the last line of its side: no line of that side follows.
			for _, r := range lines[i+1:] {
				if r.kind == ' ' || r.kind == prev {
					return &PatchError{Line: l.num, Msg: fmt.Sprintf("%s: %q must follow the last line of its side of the file, but more lines follow", where, shorten("\\"+l.text))}
				}
			}
			c.NoNewlineOld = c.NoNewlineOld || prev == ' ' || prev == '-'
			c.NoNewlineNew = c.NoNewlineNew || prev == ' ' || prev == '+'
		}
		prev = l.kind
	}
	c.EndOfFile = c.NoNewlineOld || c.NoNewlineNew
	return nil
}

// checkHunk refuses a hunk that does not fit its file's headers.
func (p *udiffParser) checkHunk(f *fileHead, h hunkHead, c PatchChunk, where string) error {
	switch {
	case f.oldPath == "" && len(c.OldLines) > 0:
		return &PatchError{Line: c.Line, Msg: fmt.Sprintf("%s creates the file (\"--- /dev/null\"), so every line is added ('+'), but it has context or removed lines", where)}
	case f.newPath == "" && len(c.NewLines) > 0:
		return &PatchError{Line: c.Line, Msg: fmt.Sprintf("%s deletes the file (\"+++ /dev/null\"), so every line is removed ('-'), but it has context or added lines", where)}
	case f.oldPath != "" && len(c.OldLines) == 0 && len(c.NewLines) > 0 && !(h.counted && h.oldStart == 0 && h.oldN == 0):
		return &PatchError{Line: c.Line, Msg: fmt.Sprintf(
			"%s only adds lines, with no context or removed line to show where they go in the existing file; line numbers are not enough: add two or three unchanged lines (' ') from around the place, or, to create the file, use \"--- /dev/null\"", where)}
	}
	return nil
}

// addOp adds one file's operation, merging hunks of a file already updated.
func (p *udiffParser) addOp(h *fileHead, hunks []PatchChunk) error {
	oldPath, newPath := h.oldPath, h.newPath
	if oldPath == "" && newPath == "" { // git headers without ---/+++
		oldPath, newPath = h.gitOld, h.gitNew
		if h.renameFrom != "" || h.renameTo != "" {
			oldPath, newPath = h.renameFrom, h.renameTo
		}
		switch {
		case h.created:
			oldPath = ""
		case h.deleted:
			newPath = ""
		}
		if oldPath == "" && newPath == "" {
			return &PatchError{Line: h.line, Msg: "the file header names no file that can be read: write \"--- a/PATH\" and \"+++ b/PATH\""}
		}
	}
	op := PatchOp{Path: oldPath, Line: h.line, Chunks: hunks}
	switch {
	case oldPath == "":
		op.Kind, op.Path, op.Chunks = OpAdd, newPath, nil
		var lines []string
		noNL := false
		for _, c := range hunks {
			lines = append(lines, c.NewLines...)
			noNL = c.NoNewlineNew
		}
		if len(lines) > 0 {
			op.Content = strings.Join(lines, "\n")
			if !noNL {
				op.Content += "\n"
			}
		}
	case newPath == "":
		op.Kind = OpDelete
	default:
		op.Kind = OpUpdate
		if newPath != oldPath {
			op.MoveTo = newPath
		}
		if len(hunks) == 0 && op.MoveTo == "" {
			return &PatchError{Line: h.line, Msg: fmt.Sprintf("the diff of %s changes nothing: give it \"@@\" hunks with '-' and '+' lines", oldPath)}
		}
		if k, ok := p.updates[oldPath]; ok && op.MoveTo == p.out.Ops[k].MoveTo {
			p.out.Ops[k].Chunks = append(p.out.Ops[k].Chunks, hunks...)
			return nil
		}
		p.updates[oldPath] = len(p.out.Ops)
	}
	p.out.Ops = append(p.out.Ops, op)
	return nil
}
