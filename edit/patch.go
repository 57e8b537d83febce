package edit

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// The apply_patch format of OpenAI Codex:
//
//	*** Begin Patch
//	*** Add File: path/new.txt
//	+every line of the new file
//	*** Delete File: path/old.txt
//	*** Update File: path/file.py
//	*** Move to: path/renamed.py     (optional)
//	@@ def function():                 (optional anchor)
//	 context line
//	-removed line
//	+added line
//	*** End of File                    (optional: the chunk ends the file)
//	*** End Patch
//
// ParsePatch takes what models write: CRLF, a heredoc or code fence around the
// patch, a missing Begin Patch, markers in any case, nested "@@" anchors,
// unified-diff hunk headers, "\ No newline" lines, context lines without
// their space. Anything else is an error naming the patch line. "*** End
// Patch" is required: it is the only evidence that the patch arrived whole,
// so a patch without it, or whose heredoc or fence is never closed, is a
// truncation (PatchError.Truncated) and is never applied.

// OpKind is what a patch operation does to its file.
type OpKind string

// Patch operations.
const (
	OpAdd    OpKind = "ADD"
	OpDelete OpKind = "DELETE"
	OpUpdate OpKind = "UPDATE"
)

// Patch is a parsed apply_patch text: its file operations in order.
type Patch struct {
	Ops []PatchOp
	// Unmarked: the patch has neither "*** Begin Patch" nor "*** End
	// Patch" and ends with a context line. It is whole only if every
	// chunk's context matches the file: see CheckUnmarked.
	Unmarked bool
	// Unified: read from a unified diff (ParseUnifiedDiff).
	Unified bool
}

// PatchOp is one file's operation.
type PatchOp struct {
	Kind    OpKind
	Path    string
	MoveTo  string       // Update only: the file's new path, if it moves
	Content string       // Add only: the new file's content
	Chunks  []PatchChunk // Update only
	Line    int          // 1-based line of the operation's header in the patch
}

// PatchChunk is one "@@" section of an Update.
type PatchChunk struct {
	// Anchors are the "@@ text" lines before the chunk; each is looked up
	// after the previous one, and the old lines after the last.
	Anchors []string
	// OldLines are the context and removed lines, NewLines the context and added ones.
	OldLines, NewLines []string
	EndOfFile          bool // followed by "*** End of File": a match there is preferred
	Line               int  // of the chunk's first line in the patch, 1-based

	// Unified: a unified diff's hunk. Its file keeps its final newline or
	// its absence unless NoNewlineOld/NoNewlineNew ("\ No newline at end
	// of file" after the last old or new line) say otherwise, and an empty
	// OldLines (a hunk "@@ -0,0 ...") only fills an empty file.
	Unified                    bool
	StartLine                  int // the header's old start line: a hint, as Edit.StartLine
	NoNewlineOld, NoNewlineNew bool
}

// PatchError is a patch that cannot be read, or a chunk without lines.
type PatchError struct {
	Line int // 1-based line in the patch; 0 when unknown
	Msg  string
	// Truncated: the patch ends before "*** End Patch" or before the
	// heredoc or fence around it closes, as a cut-off output does.
	Truncated bool
}

// ErrTruncated matches (errors.Is) a PatchError or SearchReplaceError
// whose text was cut off before its end.
var ErrTruncated = errors.New("edit: the text was cut off before its end")

// Is makes a truncated PatchError match ErrTruncated.
func (e *PatchError) Is(target error) bool { return target == ErrTruncated && e.Truncated }

func (e *PatchError) Error() string {
	if e.Line <= 0 {
		return e.Msg
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

var (
	markerRe = regexp.MustCompile(`(?i)^\*\*\*\s*(begin patch|end patch|add file|delete file|update file|move to|end of file)\s*(?::\s*(.*?))?\s*$`)
	hunkRe   = regexp.MustCompile(`^@@\s*-\d+(?:,\d+)?\s+\+\d+(?:,\d+)?\s*@@\s?(.*)$`)
)

type patchLine struct {
	text string
	num  int // 1-based, in the text given
}

// marker returns the lowercased marker name and its argument, if the line
// is a "*** ..." marker.
func marker(l string) (string, string, bool) {
	t := strings.TrimSpace(l)
	if !strings.HasPrefix(t, "***") {
		return "", "", false
	}
	m := markerRe.FindStringSubmatch(t)
	if m == nil {
		return "", "", false
	}
	return strings.ToLower(m[1]), strings.TrimSpace(m[2]), true
}

func isMarker(l string) bool {
	_, _, ok := marker(l)
	return ok
}

func isBlank(l string) bool { return strings.TrimSpace(l) == "" }

func emptyPatch() error {
	return &PatchError{Msg: "the patch is empty: it starts with \"*** Begin Patch\""}
}

// patchParser reads a patch's lines; i is the next line to read.
type patchParser struct {
	lines    []patchLine
	i        int
	wrappers []wrapper // around the patch, outermost first
	count    int       // lines in the text given: the last has no line end
	unmarked bool      // neither Begin nor End Patch (unmarkedEnd)
}

// ParsePatch parses an apply_patch text.
//
// A unified diff (LooksLikeUnifiedDiff) is read by ParseUnifiedDiff.
func ParsePatch(patch string) (*Patch, error) {
	if LooksLikeUnifiedDiff(patch) {
		return ParseUnifiedDiff(patch)
	}
	raw := strings.Split(strings.ReplaceAll(patch, "\r\n", "\n"), "\n")
	p := &patchParser{lines: make([]patchLine, 0, len(raw)), count: len(raw)}
	for i, l := range raw {
		p.lines = append(p.lines, patchLine{l, i + 1})
	}
	if err := p.unwrap(); err != nil {
		return nil, err
	}
	if err := p.begin(); err != nil {
		return nil, err
	}
	if err := p.end(); err != nil {
		return nil, err
	}
	out := &Patch{}
	for {
		op, ok, err := p.op()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		out.Ops = append(out.Ops, op)
	}
	if len(out.Ops) == 0 {
		return nil, &PatchError{Msg: "the patch has no file operation: use \"*** Add File: PATH\", \"*** Delete File: PATH\" or \"*** Update File: PATH\""}
	}
	if p.unmarked {
		if err := p.checkUnmarkedEnd(out); err != nil {
			return nil, err
		}
		out.Unmarked = true
	}
	return out, nil
}

// checkUnmarkedEnd makes sure the context line that ends an unmarked patch
// is the last old line of its last Update chunk.
func (p *patchParser) checkUnmarkedEnd(out *Patch) error {
	last := p.lines[len(p.lines)-1]
	op := out.Ops[len(out.Ops)-1]
	if op.Kind == OpUpdate && len(op.Chunks) > 0 {
		c := op.Chunks[len(op.Chunks)-1]
		if n := len(c.OldLines); n > 0 && c.OldLines[n-1] == last.text[1:] {
			return nil
		}
	}
	return &PatchError{Line: last.num, Truncated: true, Msg: "the patch ends without \"*** End Patch\", so it may have been cut off; " + resend}
}

// CheckUnmarked judges the results of applying an unmarked patch's chunks
// (ApplyChunks): such a patch is whole only if every chunk that has old
// lines matched them on a whole-line equality rung (EXACT, TRIM_END, TRIM,
// INDENT), so that its last context line is the file's. It returns the
// first chunk that did not, and why.
func CheckUnmarked(chunks []PatchChunk, results []EditResult) (int, string, bool) {
	for i, r := range results {
		if i >= len(chunks) || len(chunks[i].OldLines) == 0 || r.Status != StatusApplied {
			continue
		}
		switch r.Strategy {
		case StrategyExact, StrategyTrimEnd, StrategyTrim, StrategyIndent:
			continue
		}
		return i, fmt.Sprintf("the patch has neither \"*** Begin Patch\" nor \"*** End Patch\", so only context lines that match the file show it arrived whole, and chunk %d (line %d) matched only approximately (%s); %s", i+1, chunks[i].Line, r.Strategy, resend), false
	}
	return 0, "", true
}

// op reads the next file operation; ok is false at the end of the patch.
func (p *patchParser) op() (op PatchOp, ok bool, err error) {
	for p.i < len(p.lines) {
		l := p.lines[p.i]
		if isBlank(l.text) {
			p.i++
			continue
		}
		kind, arg, isMarker := marker(l.text)
		if !isMarker {
			return op, false, &PatchError{Line: l.num, Msg: fmt.Sprintf("expected a file header (\"*** Add File: PATH\", \"*** Delete File: PATH\", \"*** Update File: PATH\") or \"*** End Patch\", not %q", shorten(l.text))}
		}
		switch kind {
		case "end patch":
			p.i = len(p.lines) // whatever follows is not the patch's
			return op, false, nil
		case "begin patch":
			p.i++ // a repeated Begin Patch is harmless
			continue
		case "add file", "delete file", "update file":
		default:
			return op, false, &PatchError{Line: l.num, Msg: fmt.Sprintf("%q is not where a file header belongs", shorten(l.text))}
		}
		if arg == "" {
			return op, false, &PatchError{Line: l.num, Msg: fmt.Sprintf("%q names no file", shorten(l.text))}
		}
		op = PatchOp{Path: arg, Line: l.num}
		p.i++
		switch kind {
		case "add file":
			err = p.addFile(&op)
		case "delete file":
			err = p.deleteFile(&op)
		default:
			err = p.updateFile(&op)
		}
		return op, err == nil, err
	}
	return op, false, nil
}

// addFile reads the "+" lines of an Add File. Blank lines count only when
// more "+" lines follow.
func (p *patchParser) addFile(op *PatchOp) error {
	op.Kind = OpAdd
	var content []string
	blank := 0
lines:
	for ; p.i < len(p.lines); p.i++ {
		t := p.lines[p.i].text
		switch {
		case strings.HasPrefix(t, "+"):
			for ; blank > 0; blank-- {
				content = append(content, "")
			}
			content = append(content, t[1:])
		case isBlank(t):
			blank++
		case isMarker(t):
			break lines
		default:
			return &PatchError{Line: p.lines[p.i].num, Msg: fmt.Sprintf("in \"*** Add File: %s\" every line starts with '+': %q", op.Path, shorten(t))}
		}
	}
	if len(content) > 0 {
		op.Content = strings.Join(content, "\n") + "\n"
	}
	return nil
}

// deleteFile checks that a Delete File has no lines.
func (p *patchParser) deleteFile(op *PatchOp) error {
	op.Kind = OpDelete
	for p.i < len(p.lines) && isBlank(p.lines[p.i].text) {
		p.i++
	}
	if p.i < len(p.lines) && !isMarker(p.lines[p.i].text) {
		return &PatchError{Line: p.lines[p.i].num, Msg: fmt.Sprintf("\"*** Delete File: %s\" takes no lines: %q", op.Path, shorten(p.lines[p.i].text))}
	}
	return nil
}

// updateFile reads an Update File's optional "*** Move to:" and its chunks.
func (p *patchParser) updateFile(op *PatchOp) error {
	op.Kind = OpUpdate
	j := p.i
	for j < len(p.lines) && isBlank(p.lines[j].text) {
		j++
	}
	if j < len(p.lines) {
		if k, a, ok := marker(p.lines[j].text); ok && k == "move to" {
			if a == "" {
				return &PatchError{Line: p.lines[j].num, Msg: "\"*** Move to:\" names no file"}
			}
			op.MoveTo = a
			p.i = j + 1
		}
	}
	var err error
	if op.Chunks, err = p.chunks(op.Path); err != nil {
		return err
	}
	if len(op.Chunks) == 0 && op.MoveTo == "" {
		return &PatchError{Line: op.Line, Msg: fmt.Sprintf("\"*** Update File: %s\" has no changes: add @@ chunks with ' ', '-' and '+' lines", op.Path)}
	}
	return nil
}

// chunkReader collects an Update's chunks.
type chunkReader struct {
	path   string
	chunks []PatchChunk
	cur    *PatchChunk
	// trailingEmpty counts the empty lines at the end of cur, dropped if
	// nothing follows.
	trailingEmpty int
	lastHeader    int
}

func (c *chunkReader) start(line int) {
	c.cur = &PatchChunk{Line: line}
	c.lastHeader = line
}

func (c *chunkReader) hasLines() bool {
	return c.cur != nil && len(c.cur.OldLines)+len(c.cur.NewLines) > 0
}

func (c *chunkReader) finish() error {
	if c.cur == nil {
		return nil
	}
	n := c.trailingEmpty
	c.cur.OldLines = c.cur.OldLines[:len(c.cur.OldLines)-n]
	c.cur.NewLines = c.cur.NewLines[:len(c.cur.NewLines)-n]
	if len(c.cur.OldLines) == 0 && len(c.cur.NewLines) == 0 {
		return &PatchError{Line: c.lastHeader, Msg: fmt.Sprintf("a chunk of \"*** Update File: %s\" has no lines", c.path)}
	}
	c.chunks = append(c.chunks, *c.cur)
	c.cur, c.trailingEmpty = nil, 0
	return nil
}

// anchor reads an "@@" line: a unified-diff hunk header's text after its
// second "@@", or the text after "@@".
func (c *chunkReader) anchor(t string, num int) error {
	anchor := ""
	if m := hunkRe.FindStringSubmatch(t); m != nil {
		anchor = strings.TrimSpace(m[1])
	} else {
		anchor = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(t[2:]), "@@"))
	}
	if c.hasLines() {
		if err := c.finish(); err != nil {
			return err
		}
	}
	if c.cur == nil {
		c.start(num)
	}
	if anchor != "" {
		c.cur.Anchors = append(c.cur.Anchors, anchor)
	}
	return nil
}

// line adds a chunk line by its prefix.
func (c *chunkReader) line(t string, num int) {
	if c.cur == nil {
		if isBlank(t) {
			return // blank lines between chunks
		}
		c.start(num)
	}
	cur := c.cur
	switch {
	case t == "":
		cur.OldLines = append(cur.OldLines, "")
		cur.NewLines = append(cur.NewLines, "")
		c.trailingEmpty++
		return
	case t[0] == ' ':
		cur.OldLines = append(cur.OldLines, t[1:])
		cur.NewLines = append(cur.NewLines, t[1:])
	case t[0] == '-':
		cur.OldLines = append(cur.OldLines, t[1:])
	case t[0] == '+':
		cur.NewLines = append(cur.NewLines, t[1:])
	default:
		// No prefix: the model dropped the context line's space.
		cur.OldLines = append(cur.OldLines, t)
		cur.NewLines = append(cur.NewLines, t)
	}
	c.trailingEmpty = 0
}

// chunks reads an Update's chunks, up to the next file header or the end.
func (p *patchParser) chunks(path string) ([]PatchChunk, error) {
	c := &chunkReader{path: path}
	for ; p.i < len(p.lines); p.i++ {
		t, num := p.lines[p.i].text, p.lines[p.i].num
		if kind, _, ok := marker(t); ok {
			if kind != "end of file" {
				break // the next file header, End Patch, ...
			}
			if !c.hasLines() {
				return nil, &PatchError{Line: num, Msg: "\"*** End of File\" follows no chunk lines"}
			}
			c.cur.EndOfFile = true
			if err := c.finish(); err != nil {
				return nil, err
			}
			continue
		}
		switch {
		case strings.HasPrefix(t, "@@"):
			if err := c.anchor(t, num); err != nil {
				return nil, err
			}
		case strings.HasPrefix(t, `\ `):
			// "\ No newline at end of file"
		default:
			c.line(t, num)
		}
	}
	if c.cur != nil {
		if len(c.cur.OldLines) == c.trailingEmpty && len(c.cur.NewLines) == c.trailingEmpty && len(c.cur.Anchors) == 0 {
			c.cur = nil // only blank lines after the last chunk
		} else if err := c.finish(); err != nil {
			return nil, err
		}
	}
	return c.chunks, nil
}

func shorten(s string) string {
	if len(s) > 80 {
		cut := 80
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		return s[:cut] + "…"
	}
	return s
}

// ApplyChunks applies an Update's chunks in order with the edit ladder: the
// context and removed lines are the old text, the context and added lines
// the new. A chunk is searched after the previous one and after its anchors
// (one not found is ignored); with either, the first match wins, as a patch is
// positional, and a chunk not found there is looked for in the whole file
// (models reorder chunks). A chunk that only adds lines inserts them after its
// anchor, or at the end (as Codex does). As with ApplyEdits a failed chunk
// changes nothing; the error is only for a chunk without lines. A file a
// chunk changed ends with a newline, as Codex's grammar defines an updated
// file (plain edits keep the file's final newline or its absence).
//
// A unified diff's hunks (PatchChunk.Unified) are applied by applyHunk
// (udiff_apply.go): their start line is a hint, and the file's final
// newline follows the "\ No newline at end of file" markers.
func ApplyChunks(content string, chunks []PatchChunk, opts MatchOptions) (string, []EditResult, error) {
	for i, c := range chunks {
		if len(c.OldLines) == 0 && len(c.NewLines) == 0 {
			return content, nil, &PatchError{Line: c.Line, Msg: fmt.Sprintf("chunk %d has no lines", i+1)}
		}
	}
	opts = opts.withDefaults()
	results := make([]EditResult, len(chunks))
	d := newDoc(content)
	cursor := 0
	placed := false // a chunk applied: later ones are placed after it
	unified := false
	var hints hunkHints
	for i, c := range chunks {
		var (
			out string
			r   EditResult
			ap  applied
		)
		if c.Unified {
			unified = true
			out, r, ap = d.applyHunk(c, hints.hint(c), cursor, placed, opts)
		} else {
			out, r, ap = d.applyChunk(c, cursor, placed, opts)
		}
		results[i] = r
		if r.Status == StatusApplied {
			content = out
			d = newDoc(content)
			cursor = ap.nextLin
			placed = true
			hints.applied(c)
		}
	}
	if placed && !unified {
		content = withFinalNewline(content)
	}
	return content, results, nil
}

// applyChunk applies one chunk of an apply_patch Update.
func (d *doc) applyChunk(c PatchChunk, cursor int, placed bool, opts MatchOptions) (string, EditResult, applied) {
	from, anchorLine := cursor, -1
	for _, a := range c.Anchors {
		idx := d.findAnchor(a, from)
		if idx < 0 {
			anchorLine = -1
			break
		}
		anchorLine, from = idx, idx+1
	}
	if anchorLine >= 0 {
		from = anchorLine // the model may repeat the anchor as context
	} else {
		from = cursor
	}
	if len(c.OldLines) == 0 {
		return d.insertLines(anchorLine, c.NewLines)
	}
	e := chunkEdit(c)
	positional := anchorLine >= 0 || placed
	out, r, ap := applyScoped(d, e, opts, scope{from: from, preferFirst: positional, eof: c.EndOfFile})
	if (r.Status == StatusNotFound || r.Status == StatusAlreadyApplied) && from > 0 {
		if out2, r2, ap2 := applyScoped(d, e, opts, scope{eof: c.EndOfFile}); r2.Status == StatusApplied {
			out, r, ap = out2, r2, ap2
		}
	}
	return out, r, ap
}

// chunkEdit is a chunk as an edit: its old lines replaced by its new ones.
func chunkEdit(c PatchChunk) Edit {
	e := Edit{OldText: strings.Join(c.OldLines, "\n") + "\n"}
	if len(c.NewLines) > 0 {
		e.NewText = strings.Join(c.NewLines, "\n") + "\n"
	}
	return e
}

// withFinalNewline ends a non-empty text with a line break, CRLF when its
// last line break is one.
func withFinalNewline(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	d := newDoc(s)
	if d.crlfFor(match{start: len(d.n), end: len(d.n)}) {
		return s + "\r\n"
	}
	return s + "\n"
}

// findAnchor returns the first line at or after from that the anchor names:
// equal when trimmed, then Unicode-normalised, then starting with it, then
// containing it. -1 when none does.
func (d *doc) findAnchor(anchor string, from int) int {
	a := strings.TrimSpace(anchor)
	if a == "" {
		return -1
	}
	L := d.lineIndex()
	ua := lineKey(keyUnicode, a)
	passes := []func(i int) bool{
		func(i int) bool { return d.lineKeys(keyTrim)[i] == a },
		func(i int) bool { return d.lineKeys(keyUnicode)[i] == ua },
		func(i int) bool { return strings.HasPrefix(d.lineKeys(keyUnicode)[i], ua) },
		func(i int) bool { return strings.Contains(d.lineKeys(keyUnicode)[i], ua) },
	}
	for _, pass := range passes {
		for i := max(from, 0); i < len(L); i++ {
			if pass(i) {
				return i
			}
		}
	}
	return -1
}

// insertLines inserts whole lines after line after (0-based), or at the end
// of the file when after is negative or the last line; the file keeps its
// line endings and its final newline's presence or absence (ApplyChunks
// decides about the final newline).
func (d *doc) insertLines(after int, lines []string) (string, EditResult, applied) {
	L := d.lineIndex()
	at := len(L)
	if after >= 0 && after+1 < len(L) {
		at = after + 1
	}
	// Already there?
	present := func(first int) bool {
		if first < 0 || first+len(lines) > len(L) {
			return false
		}
		for j, l := range lines {
			if lineKey(keyTrimEnd, d.text(first+j)) != lineKey(keyTrimEnd, l) {
				return false
			}
		}
		return true
	}
	if (at < len(L) && present(at)) || (at == len(L) && (present(len(L)-len(lines)) || (after >= 0 && present(after+1)))) {
		first := at
		if at == len(L) {
			first = len(L) - len(lines)
			if after >= 0 && present(after+1) {
				first = after + 1
			}
		}
		return d.orig, EditResult{Status: StatusAlreadyApplied, Strategy: StrategyExact, Similarity: 1, Line: first + 1, Column: 1,
			Hint: fmt.Sprintf("The added lines are already at line %d; nothing changed.", first+1)}, applied{}
	}
	text := strings.Join(lines, "\n") + "\n"
	var pos int
	switch {
	case d.n == "":
		pos = 0
	case at < len(L):
		pos = L[at].start
	case d.finalNL:
		pos = len(d.n)
	default:
		pos = len(d.n)
		text = "\n" + strings.TrimSuffix(text, "\n") // the file keeps ending without a newline
	}
	if d.crlfFor(match{start: pos, end: pos}) {
		text = strings.ReplaceAll(text, "\n", "\r\n")
	}
	o := d.origOff(pos)
	out := d.orig[:o] + text + d.orig[o:]
	line := at + 1
	return out, EditResult{Status: StatusApplied, Strategy: StrategyExact, Similarity: 1, Line: line, Column: 1},
		applied{spans: [][2]int{{o, o}}, repls: []string{text}, nextLin: at + len(lines)}
}
