package edit

import (
	"fmt"
	"regexp"
	"strings"
)

// The apply_patch format of OpenAI Codex:
//
//	*** Begin Patch
//	*** Add File: path/new.txt
//	+every line of the new file, prefixed with "+"
//	*** Delete File: path/old.txt
//	*** Update File: path/file.py
//	*** Move to: path/renamed.py          (optional)
//	@@ def function():                      (optional anchor; "@@" alone is fine)
//	 context line
//	-removed line
//	+added line
//	*** End of File                         (optional: the chunk ends the file)
//	*** End Patch
//
// ParsePatch is lenient with what models write: CRLF, blank lines around the
// patch, a missing "*** End Patch" (or "*** Begin Patch" when the patch
// starts with a file header), a heredoc ("<<'EOF'" ... "EOF") or code fence
// around it, markers in another case or with surrounding spaces, blank lines
// between chunks, a first chunk without "@@", several "@@ anchor" lines in a
// row (nested anchors: class, then method), unified-diff hunk headers
// ("@@ -12,7 +12,8 @@ func f()": the text after the second "@@" is the
// anchor), "\ No newline at end of file" lines (ignored), an empty line
// inside a chunk (an empty context line; empty lines at the end of a chunk
// are dropped) and a chunk line with no prefix at all (taken as context).
// Anything else is an error naming the patch line.

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
	// Anchors are the "@@ text" lines before the chunk, in order: each is
	// looked up (trimmed; exact, then Unicode-normalised, then as a prefix,
	// then as a substring of a line) after the previous one, and the
	// chunk's old lines are searched from the last anchor's line on.
	Anchors []string
	// OldLines are the context and removed lines; NewLines the context and
	// added lines, in order.
	OldLines, NewLines []string
	// EndOfFile: the chunk was followed by "*** End of File"; a match at the
	// end of the file is preferred.
	EndOfFile bool
	// Line is the 1-based line of the chunk's first line in the patch.
	Line int
}

// PatchError is a patch that cannot be read, or a chunk that cannot be
// applied for a reason other than not matching.
type PatchError struct {
	Line int // 1-based line in the patch; 0 when unknown
	Msg  string
}

func (e *PatchError) Error() string {
	if e.Line <= 0 {
		return e.Msg
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

var (
	markerRe  = regexp.MustCompile(`(?i)^\*\*\*\s*(begin patch|end patch|add file|delete file|update file|move to|end of file)\s*(?::\s*(.*?))?\s*$`)
	heredocRe = regexp.MustCompile(`^(?:apply_patch\s*)?<<-?\s*['"]?([A-Za-z_]+)['"]?\s*$`)
	hunkRe    = regexp.MustCompile(`^@@\s*-\d+(?:,\d+)?\s+\+\d+(?:,\d+)?\s*@@\s?(.*)$`)
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

// ParsePatch parses an apply_patch text.
func ParsePatch(patch string) (*Patch, error) {
	raw := strings.Split(strings.ReplaceAll(patch, "\r\n", "\n"), "\n")
	lines := make([]patchLine, 0, len(raw))
	for i, l := range raw {
		lines = append(lines, patchLine{l, i + 1})
	}
	trim := func() {
		for len(lines) > 0 && strings.TrimSpace(lines[0].text) == "" {
			lines = lines[1:]
		}
		for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1].text) == "" {
			lines = lines[:len(lines)-1]
		}
	}
	trim()
	if len(lines) == 0 {
		return nil, &PatchError{Msg: "the patch is empty: it starts with \"*** Begin Patch\""}
	}
	// A heredoc or a code fence around the patch.
	for {
		first := strings.TrimSpace(lines[0].text)
		if m := heredocRe.FindStringSubmatch(first); m != nil {
			lines = lines[1:]
			if len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1].text) == m[1] {
				lines = lines[:len(lines)-1]
			}
		} else if strings.HasPrefix(first, "```") {
			lines = lines[1:]
			if len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1].text) == "```" {
				lines = lines[:len(lines)-1]
			}
		} else {
			break
		}
		trim()
		if len(lines) == 0 {
			return nil, &PatchError{Msg: "the patch is empty: it starts with \"*** Begin Patch\""}
		}
	}

	kind, _, ok := marker(lines[0].text)
	switch {
	case ok && kind == "begin patch":
		lines = lines[1:]
	case ok && (kind == "add file" || kind == "delete file" || kind == "update file"):
		// Lenient: "*** Begin Patch" forgotten.
	default:
		return nil, &PatchError{Line: lines[0].num, Msg: fmt.Sprintf("a patch starts with \"*** Begin Patch\", not %q", shorten(lines[0].text))}
	}

	p := &Patch{}
	i := 0
	for i < len(lines) {
		l := lines[i]
		if strings.TrimSpace(l.text) == "" {
			i++
			continue
		}
		kind, arg, ok := marker(l.text)
		if !ok {
			return nil, &PatchError{Line: l.num, Msg: fmt.Sprintf("expected a file header (\"*** Add File: PATH\", \"*** Delete File: PATH\", \"*** Update File: PATH\") or \"*** End Patch\", not %q", shorten(l.text))}
		}
		switch kind {
		case "end patch":
			i = len(lines) // whatever follows is not the patch's
			continue
		case "begin patch":
			i++ // a repeated Begin Patch is harmless
			continue
		case "add file", "delete file", "update file":
		default:
			return nil, &PatchError{Line: l.num, Msg: fmt.Sprintf("%q is not where a file header belongs", shorten(l.text))}
		}
		if arg == "" {
			return nil, &PatchError{Line: l.num, Msg: fmt.Sprintf("%q names no file", shorten(l.text))}
		}
		op := PatchOp{Path: arg, Line: l.num}
		i++
		switch kind {
		case "add file":
			op.Kind = OpAdd
			var content []string
			blank := 0 // empty lines seen, kept only if more "+" lines follow
			for i < len(lines) {
				t := lines[i].text
				if strings.HasPrefix(t, "+") {
					for ; blank > 0; blank-- {
						content = append(content, "")
					}
					content = append(content, t[1:])
					i++
					continue
				}
				if strings.TrimSpace(t) == "" {
					blank++
					i++
					continue
				}
				if _, _, isMarker := marker(t); isMarker {
					break
				}
				return nil, &PatchError{Line: lines[i].num, Msg: fmt.Sprintf("in \"*** Add File: %s\" every line starts with '+': %q", op.Path, shorten(t))}
			}
			if len(content) > 0 {
				op.Content = strings.Join(content, "\n") + "\n"
			}
		case "delete file":
			op.Kind = OpDelete
			for i < len(lines) && strings.TrimSpace(lines[i].text) == "" {
				i++
			}
			if i < len(lines) {
				if _, _, isMarker := marker(lines[i].text); !isMarker {
					return nil, &PatchError{Line: lines[i].num, Msg: fmt.Sprintf("\"*** Delete File: %s\" takes no lines: %q", op.Path, shorten(lines[i].text))}
				}
			}
		case "update file":
			op.Kind = OpUpdate
			j := i
			for j < len(lines) && strings.TrimSpace(lines[j].text) == "" {
				j++
			}
			if j < len(lines) {
				if k, a, ok := marker(lines[j].text); ok && k == "move to" {
					if a == "" {
						return nil, &PatchError{Line: lines[j].num, Msg: "\"*** Move to:\" names no file"}
					}
					op.MoveTo = a
					i = j + 1
				}
			}
			var err error
			op.Chunks, i, err = parseChunks(lines, i, op.Path)
			if err != nil {
				return nil, err
			}
			if len(op.Chunks) == 0 && op.MoveTo == "" {
				return nil, &PatchError{Line: l.num, Msg: fmt.Sprintf("\"*** Update File: %s\" has no changes: add @@ chunks with ' ', '-' and '+' lines", op.Path)}
			}
		}
		p.Ops = append(p.Ops, op)
	}
	if len(p.Ops) == 0 {
		return nil, &PatchError{Msg: "the patch has no file operation: use \"*** Add File: PATH\", \"*** Delete File: PATH\" or \"*** Update File: PATH\""}
	}
	return p, nil
}

// parseChunks parses the chunks of an Update from lines[i:], up to the next
// file header or the end; it returns them and the index where it stopped.
func parseChunks(lines []patchLine, i int, path string) ([]PatchChunk, int, error) {
	var chunks []PatchChunk
	var cur *PatchChunk
	var trailingEmpty int // empty lines at the end of cur, dropped if nothing follows
	var lastHeader int
	finish := func() error {
		if cur == nil {
			return nil
		}
		n := trailingEmpty
		cur.OldLines = cur.OldLines[:len(cur.OldLines)-n]
		cur.NewLines = cur.NewLines[:len(cur.NewLines)-n]
		if len(cur.OldLines) == 0 && len(cur.NewLines) == 0 {
			return &PatchError{Line: lastHeader, Msg: fmt.Sprintf("a chunk of \"*** Update File: %s\" has no lines", path)}
		}
		chunks = append(chunks, *cur)
		cur, trailingEmpty = nil, 0
		return nil
	}
	start := func(line int) {
		cur = &PatchChunk{Line: line}
		lastHeader = line
	}
	for ; i < len(lines); i++ {
		t, num := lines[i].text, lines[i].num
		if kind, _, ok := marker(t); ok {
			if kind == "end of file" {
				if cur == nil || len(cur.OldLines)+len(cur.NewLines) == 0 {
					return nil, i, &PatchError{Line: num, Msg: "\"*** End of File\" follows no chunk lines"}
				}
				cur.EndOfFile = true
				if err := finish(); err != nil {
					return nil, i, err
				}
				continue
			}
			break // the next file header, End Patch, ...
		}
		if strings.HasPrefix(t, "@@") {
			anchor := ""
			if m := hunkRe.FindStringSubmatch(t); m != nil {
				anchor = strings.TrimSpace(m[1])
			} else {
				anchor = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(t[2:]), "@@"))
			}
			if cur != nil && len(cur.OldLines)+len(cur.NewLines) > 0 {
				if err := finish(); err != nil {
					return nil, i, err
				}
			}
			if cur == nil {
				start(num)
			}
			if anchor != "" {
				cur.Anchors = append(cur.Anchors, anchor)
			}
			continue
		}
		if strings.HasPrefix(t, `\ `) {
			continue // "\ No newline at end of file"
		}
		if cur == nil {
			if strings.TrimSpace(t) == "" {
				continue // blank lines between chunks
			}
			start(num)
		}
		switch {
		case t == "":
			cur.OldLines = append(cur.OldLines, "")
			cur.NewLines = append(cur.NewLines, "")
			trailingEmpty++
			continue
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
		trailingEmpty = 0
	}
	if cur != nil {
		if len(cur.OldLines) == trailingEmpty && len(cur.NewLines) == trailingEmpty && len(cur.Anchors) == 0 {
			cur = nil // only blank lines after the last chunk
		} else if err := finish(); err != nil {
			return nil, i, err
		}
	}
	return chunks, i, nil
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

// ApplyChunks applies an Update's chunks to a file's content, in order, with
// the edit matcher: a chunk's context and removed lines are the old text,
// its context and added lines the new text (whole lines).
//
// A chunk is searched from where the previous applied one ended, and from
// its anchors' line when it has anchors. With an anchor found, or after an
// applied chunk, the first match is taken, as a patch means (Codex's
// positional reading); a chunk with neither must match uniquely. An anchor
// that cannot be found is ignored (the old lines still have to match). A chunk not found after the previous one is
// looked for in the whole file (models do not always keep chunks in order).
// A chunk marked "*** End of File" prefers a match at the end of the file. A
// chunk that only adds lines inserts them after its anchor line, or at the
// end of the file when it has no anchor (as Codex does); if those lines are
// there already, it is ALREADY_APPLIED.
//
// Each chunk has its EditResult; as with ApplyEdits a failed chunk (NOT_FOUND,
// AMBIGUOUS) leaves the content unchanged for the next ones, and the caller
// decides whether a patch with failures is kept. The error is only for
// chunks that carry no lines at all.
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
	for i, c := range chunks {
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
		var (
			out string
			r   EditResult
			ap  applied
		)
		if len(c.OldLines) == 0 {
			out, r, ap = d.insertLines(anchorLine, c.NewLines)
		} else {
			e := Edit{OldText: strings.Join(c.OldLines, "\n") + "\n"}
			if len(c.NewLines) > 0 {
				e.NewText = strings.Join(c.NewLines, "\n") + "\n"
			}
			positional := anchorLine >= 0 || placed
			out, r, ap = applyScoped(d, e, opts, scope{from: from, preferFirst: positional, eof: c.EndOfFile})
			if (r.Status == StatusNotFound || r.Status == StatusAlreadyApplied) && from > 0 {
				if out2, r2, ap2 := applyScoped(d, e, opts, scope{eof: c.EndOfFile}); r2.Status == StatusApplied {
					out, r, ap = out2, r2, ap2
				}
			}
		}
		results[i] = r
		if r.Status == StatusApplied {
			content = out
			d = newDoc(content)
			cursor = ap.nextLin
			placed = true
		}
	}
	return content, results, nil
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

// insertLines inserts whole lines before line at (0-based), or at the end of
// the file when at is negative or past the end; the file keeps its line
// endings and its final newline's presence or absence.
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
