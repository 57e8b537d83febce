package edit

import (
	"fmt"
	"strings"
)

// Re-indentation. The rungs that compare lines without their leading
// whitespace find an old text whose indentation is not the file's; the new
// text must then land in the file's indentation with the block structure it
// states itself. The rule, decided by evidence and never by guess:
//
//   - Evidence: the new lines equal to old lines once trimmed (a longest
//     common subsequence); without any, the lines replaced one for one;
//     without those, the first lines. Each old line stands for the file line
//     it matched. The new text's shallowest indentation, equal to the old
//     text's or the file's, breaks a tie and vetoes the other frame.
//   - The new text is in the file's frame when its evidence lines carry their
//     file lines' indentation, in the old text's frame when they carry the old
//     lines'; a frame must explain more than half of them, or half when
//     the other explains fewer and it is not a flattened old text's (all,
//     when none is unchanged: a changed line may have moved), and the file's
//     frame needs every new line indented in the file's unit. When both do and
//     the results differ, the indentations only one frame uses decide.
//   - File frame: the new text goes in as given.
//   - Old frame, the old indentation a map of the file's (each old depth one
//     file depth, order kept: a shift, tabs for spaces, 2 for 4): every new
//     indentation goes through the map, deeper ones converted to the file's
//     unit. Old frame, nesting lost (lines of different depth at one old
//     indentation): a new line takes its old line's file indentation plus its
//     own offset; a new line without one, that of its neighbours, which must
//     agree, in a new text that has nesting of its own.
//   - Neither, no evidence line in the file's frame, the new text's
//     shallowest indentation the old text's and the old indentation a map of
//     the file's: the old frame, every evidence line moved.
//   - Neither, but the evidence lines, at two depths or more, are the file's
//     shifted: the new text has a frame of its own and goes through that
//     shift, which must land every line in the file's unit.
//   - Otherwise, or when a mapped result would reorder the new text's depths,
//     the edit is refused: NOT_FOUND (send the old text exactly), the region
//     and the reason.

// reindented is reindent's outcome.
type reindented struct {
	text    string
	uniform bool   // the old text is the file's lines shifted uniformly
	refusal string // why the new text cannot be placed; "" when it was
}

// reindent places the new text nt in the file's indentation (see above);
// fileLines and oldLines are the matched lines, pairwise.
func reindent(nt string, fileLines, oldLines []string, fileStyle func() indentStyle) reindented {
	var og []indentPair
	same := true
	for j := range min(len(oldLines), len(fileLines)) {
		if isBlank(oldLines[j]) || isBlank(fileLines[j]) {
			continue
		}
		p := indentPair{leadingSpace(oldLines[j]), leadingSpace(fileLines[j])}
		same = same && p.src == p.file
		og = append(og, p)
	}
	if same {
		return reindented{text: nt}
	}
	r := &reindenter{newLines: strings.Split(nt, "\n"), oldLines: oldLines, fileLines: fileLines, fileStyle: fileStyle}
	r.g, r.gOK = newIndentMap(og)
	r.to = r.fileUnit()
	if r.gOK {
		r.g.units(r.unit(oldLines, r.newLines), r.target)
	}
	res := reindented{uniform: r.gOK && r.g.uniform()}
	res.text, res.refusal = r.run()
	if res.refusal != "" {
		res.text = ""
	}
	return res
}

type reindenter struct {
	newLines, oldLines, fileLines []string
	fileStyle                     func() indentStyle
	pair                          []int // new line → old line, or -1
	anchored                      []bool
	g                             indentMap
	gOK                           bool
	to                            indentStyle
}

func (r *reindenter) run() (string, string) {
	r.pair, r.anchored = correspond(r.newLines, r.oldLines)
	ev, anchors := r.evidence(r.anchored)
	if len(ev) == 0 {
		return strings.Join(r.newLines, "\n"), "" // nothing but blank lines
	}
	var inFile, inOld int
	for _, e := range ev {
		n, j := leadingSpace(r.newLines[e[0]]), e[1]
		if n == leadingSpace(r.fileLines[j]) {
			inFile++
		}
		if n == leadingSpace(r.oldLines[j]) {
			inOld++
		}
	}
	// Unchanged lines rarely move: most must agree, or half when the other
	// frame has fewer (of two, one moved into a new block). Changed lines
	// may have moved: all must agree.
	fits := func(in, other int, half bool) bool {
		if !anchors {
			return in == len(ev)
		}
		return 2*in > len(ev) || (half && 2*in == len(ev) && in > other)
	}
	// A flattened old text's column 0 agrees with any new line there: half is
	// no evidence for its frame.
	fileFits, oldFits := fits(inFile, inOld, true) && r.inFileUnit(), fits(inOld, inFile, r.gOK)
	// A text begins at its own base: the new text's shallowest indentation
	// breaks a tie, and vetoes a frame when it is only the other frame's.
	nb := commonPrefix(indentsOf(r.newLines))
	baseFile, baseOld := nb == commonPrefix(indentsOf(r.fileLines)), nb == commonPrefix(indentsOf(r.oldLines))
	if fileFits && oldFits && inFile == inOld && baseFile != baseOld {
		fileFits, oldFits = baseFile, baseOld
	}
	const veto = "the new lines that stand for old ones and the new text's shallowest line point to different indentations"
	switch {
	case fileFits && (!oldFits || inFile > inOld):
		if baseOld && !baseFile {
			return "", veto
		}
		return strings.Join(r.newLines, "\n"), ""
	case oldFits && (!fileFits || inOld > inFile):
		if baseFile && !baseOld {
			return "", veto
		}
		return r.oldFrame()
	case fileFits && oldFits:
		return r.tie()
	case inFile == 0 && baseOld && !baseFile && r.gOK:
		// The lines that stand for old ones all moved (wrapped in a new
		// block); the new text still begins where the old one did.
		return r.oldFrame()
	}
	return r.ownFrame(ev)
}

// inFileUnit reports whether every new line is indented in the file's unit:
// a new text in the file's frame is.
func (r *reindenter) inFileUnit() bool { return r.inUnit(r.newLines) }

// inUnit reports whether every line is indented in the file's unit.
func (r *reindenter) inUnit(lines []string) bool {
	for _, w := range indentsOf(lines) {
		switch {
		case r.to.tabs:
			if strings.Trim(w, "\t") != "" {
				return false
			}
		case r.to.width > 0:
			if strings.Contains(w, "\t") || len(w)%r.to.width != 0 {
				return false
			}
		}
	}
	return true
}

// tie settles evidence that fits the file's frame and the old text's alike.
func (r *reindenter) tie() (string, string) {
	asGiven := strings.Join(r.newLines, "\n")
	mapped, why := r.oldFrame()
	if why != "" {
		return "", why // one reading is open, so the choice between them is
	}
	if mapped == asGiven {
		return asGiven, ""
	}
	switch r.vote() {
	case 1:
		return asGiven, ""
	case -1:
		return mapped, ""
	}
	return "", "the unchanged lines fit both the old text's indentation and the file's, which differ; " +
		"the new text reads differently in each"
}

// evidence lists the new and old lines whose indentation tells the frame:
// see the rule. The first lines, paired for want of better, tell only that.
func (r *reindenter) evidence(anchored []bool) (ev [][2]int, anchors bool) {
	var same, paired [][2]int
	for i, j := range r.pair {
		if j < 0 || isBlank(r.fileLines[j]) {
			continue
		}
		paired = append(paired, [2]int{i, j})
		if anchored[i] {
			same = append(same, [2]int{i, j})
		}
	}
	switch {
	case len(same) > 0:
		return same, true
	case len(paired) > 0:
		return paired, false
	}
	fn, fo := firstNonBlank(r.newLines), firstNonBlank(r.oldLines)
	if fn < 0 || fo < 0 || fo >= len(r.fileLines) || isBlank(r.fileLines[fo]) {
		return nil, false
	}
	return [][2]int{{fn, fo}}, false
}

// vote compares the new text's indentations with those only the old text
// uses (-1) or only the file's lines use (1); 0 when nothing tells.
func (r *reindenter) vote() int {
	oldSet, fileSet := indentSet(r.oldLines), indentSet(r.fileLines)
	o, f := 0, 0
	for _, l := range r.newLines {
		if isBlank(l) {
			continue
		}
		w := leadingSpace(l)
		if oldSet[w] && !fileSet[w] {
			o++
		}
		if fileSet[w] && !oldSet[w] {
			f++
		}
	}
	switch {
	case o > 0 && f == 0:
		return -1
	case f > 0 && o == 0:
		return 1
	}
	return 0
}

// oldFrame places a new text written in the old text's indentation.
func (r *reindenter) oldFrame() (string, string) {
	if r.gOK {
		return r.mapAll(r.g)
	}
	return r.byLine()
}

// ownFrame places a new text whose evidence lines map onto the file's
// indentation, in neither the old text's nor the file's frame.
func (r *reindenter) ownFrame(ev [][2]int) (string, string) {
	ps := make([]indentPair, len(ev))
	for k, e := range ev {
		ps[k] = indentPair{leadingSpace(r.newLines[e[0]]), leadingSpace(r.fileLines[e[1]])}
	}
	h, ok := newIndentMap(ps)
	if ok {
		h.units(r.unit(nil, r.newLines), r.target)
	}
	// One depth alone would fit any shift: two, a shift alike, are evidence.
	if !ok || len(h.src) < 2 || !h.uniform() {
		return "", "the indentation of the unchanged lines follows neither the old text's nor the file's, " +
			"nor a shift of the file's"
	}
	out, why := r.mapAll(h)
	if why == "" && !r.inUnit(strings.Split(out, "\n")) {
		// A depth the evidence does not reach came out off the file's unit.
		return "", "the new text's indentation maps onto the file's only in part"
	}
	return out, why
}

// mapAll sends every new line's indentation through m, and refuses a result
// that changes the new text's depth order.
func (r *reindenter) mapAll(m indentMap) (string, string) {
	out := make([]string, len(r.newLines))
	var src, dst []string
	for i, l := range r.newLines {
		if isBlank(l) {
			out[i] = l
			continue
		}
		w := leadingSpace(l)
		d, ok := m.place(w)
		if !ok {
			return "", fmt.Sprintf("new line %d (%s) is indented out of reach of the file's indentation here, or mixes tabs and spaces unlike the other lines", i+1, excerpt(l))
		}
		out[i] = d + l[len(w):]
		src, dst = append(src, w), append(dst, d)
	}
	if !sameOrder(src, dst) {
		return "", "the new text's depths do not fit the file's indentation at this place"
	}
	return strings.Join(out, "\n"), ""
}

// byLine places a new text in the old text's frame when the old text lost
// the file's nesting: line by line, from the old line each new line stands
// for, else from its neighbours.
func (r *reindenter) byLine() (string, string) {
	out := make([]string, len(r.newLines))
	placed := make([]bool, len(r.newLines))
	from := r.unit(r.oldLines, r.newLines)
	flat := len(indentSet(r.newLines)) == 1
	if flat {
		if i := r.mixedRun(); i >= 0 {
			return "", fmt.Sprintf("the old text puts lines of different depth at one indentation and so does the new text, "+
				"so the depth of new line %d (%s), which replaces lines of different depths, is unknown", i+1, excerpt(r.newLines[i]))
		}
	}
	for i, l := range r.newLines {
		j := r.pair[i]
		if isBlank(l) || j < 0 || isBlank(r.fileLines[j]) {
			continue
		}
		w := leadingSpace(l)
		d, ok := relative(leadingSpace(r.fileLines[j]), w, leadingSpace(r.oldLines[j]), from, r.target(from))
		if !ok {
			return "", fmt.Sprintf("new line %d (%s) is indented unlike old line %d", i+1, excerpt(l), j+1)
		}
		out[i], placed[i] = d+l[len(w):], true
	}
	next := make([]int, len(out)+1) // the first placed line from i on
	next[len(out)] = -1
	for i := len(out) - 1; i >= 0; i-- {
		next[i] = next[i+1]
		if placed[i] {
			next[i] = i
		}
	}
	prev := -1
	for i, l := range r.newLines {
		if placed[i] {
			prev = i
			continue
		}
		if isBlank(l) {
			out[i] = l
			continue
		}
		// A new text at one indentation has no nesting to read: a line it
		// adds may open a block around the next ones, or close one.
		d, ok := r.between(i, prev, next[i], out, from)
		if !ok || flat {
			return "", fmt.Sprintf("the old text puts lines of different depth at one indentation, "+
				"so the depth of new line %d (%s), which replaces no old line, is unknown", i+1, excerpt(l))
		}
		out[i] = d + l[len(leadingSpace(l)):]
	}
	return strings.Join(out, "\n"), ""
}

// mixedRun returns the first new line of a run replacing old lines one for
// one whose file lines have different depths, or -1.
func (r *reindenter) mixedRun() int {
	start, depth := -1, ""
	for i, j := range r.pair {
		if isBlank(r.newLines[i]) {
			continue
		}
		if j < 0 || r.anchored[i] || isBlank(r.fileLines[j]) {
			start = -1
			continue
		}
		f := leadingSpace(r.fileLines[j])
		switch {
		case start < 0:
			start, depth = i, f
		case f != depth:
			return start
		}
	}
	return -1
}

// between places new line i from the placed lines around it, prev and next,
// which must both exist and agree.
func (r *reindenter) between(i, prev, next int, out []string, from indentStyle) (string, bool) {
	if prev < 0 || next < 0 {
		return "", false
	}
	w := leadingSpace(r.newLines[i])
	a, okA := relative(leadingSpace(out[prev]), w, leadingSpace(r.newLines[prev]), from, r.target(from))
	b, okB := relative(leadingSpace(out[next]), w, leadingSpace(r.newLines[next]), from, r.target(from))
	return a, okA && okB && a == b
}

// relative returns the indentation that stands to base as w stands to ref,
// the difference converted from one unit to the other.
func relative(base, w, ref string, from, to indentStyle) (string, bool) {
	switch {
	case strings.HasPrefix(w, ref):
		return base + convertRel(w[len(ref):], from, to), true
	case strings.HasPrefix(ref, w):
		cut := convertRel(ref[len(w):], from, to)
		if strings.HasSuffix(base, cut) {
			return base[:len(base)-len(cut)], true
		}
	}
	return "", false
}

// fileUnit is the file's indentation unit: tabs if the matched lines use
// them, else the width the whole file steps by (a few lines' steps can span
// several levels), else theirs.
func (r *reindenter) fileUnit() indentStyle {
	ws := indentsOf(r.fileLines)
	base := commonPrefix(ws)
	rels := make([]string, len(ws))
	for i, w := range ws {
		rels[i] = w[len(base):]
	}
	st, known := styleOf(ws, rels)
	if f := r.fileStyle(); known && !st.tabs && !f.tabs && f.width > 0 {
		return f
	}
	return st.or(known, r.fileStyle())
}

// target is the file's unit, or from when the file shows none (no line
// deeper than another): the model's unit is then as good as any.
func (r *reindenter) target(from indentStyle) indentStyle {
	if !r.to.tabs && r.to.width == 0 {
		return from
	}
	return r.to
}

// unit is the indentation unit of a source frame: the old and new lines'
// depths beyond the shallowest of them.
func (r *reindenter) unit(oldLines, newLines []string) indentStyle {
	ws := append(indentsOf(oldLines), indentsOf(newLines)...)
	base := commonPrefix(ws)
	rels := make([]string, len(ws))
	for i, w := range ws {
		rels[i] = w[len(base):]
	}
	st, known := styleOf(ws, rels)
	return st.or(known, r.to)
}

// excerpt quotes a line, trimmed and cut short, for a message.
func excerpt(l string) string {
	l = strings.TrimSpace(l)
	if len(l) > 40 {
		cut := 40
		for cut > 0 && l[cut]&0xC0 == 0x80 {
			cut--
		}
		l = l[:cut] + "…"
	}
	return fmt.Sprintf("%q", l)
}
