package edit

import (
	"cmp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// doc is a content prepared for matching: n is the content without its BOM
// and with CRLF turned into LF; offsets into n map back to the content.
type doc struct {
	orig    string
	bom     int
	n       string
	crs     []int // positions in n of the '\n's that were "\r\n"
	finalNL bool

	lines    []lineRange
	cache    keyCache
	hashes   map[int][]uint64
	uni      *offsetMap
	uniDone  bool
	styleSet bool
	style    indentStyle
}

type lineRange struct{ start, end int } // in n; end excludes the '\n'

const byteOrderMark = "\uFEFF"

func newDoc(content string) *doc {
	d := &doc{orig: content}
	s := content
	if strings.HasPrefix(s, byteOrderMark) {
		d.bom = len(byteOrderMark)
		s = s[d.bom:]
	}
	if strings.Contains(s, "\r\n") {
		var b strings.Builder
		b.Grow(len(s))
		for {
			i := strings.Index(s, "\r\n")
			if i < 0 {
				b.WriteString(s)
				break
			}
			b.WriteString(s[:i])
			d.crs = append(d.crs, b.Len())
			b.WriteByte('\n')
			s = s[i+2:]
		}
		s = b.String()
	}
	d.n = s
	d.finalNL = strings.HasSuffix(s, "\n")
	return d
}

// origOff maps an offset in n to an offset in the original content.
func (d *doc) origOff(t int) int {
	return d.bom + t + sort.SearchInts(d.crs, t)
}

func (d *doc) isCR(p int) bool {
	i := sort.SearchInts(d.crs, p)
	return i < len(d.crs) && d.crs[i] == p
}

func (d *doc) lineIndex() []lineRange {
	if d.lines != nil || d.n == "" {
		return d.lines
	}
	n := d.n
	L := make([]lineRange, 0, strings.Count(n, "\n")+1)
	for start := 0; start < len(n); {
		j := strings.IndexByte(n[start:], '\n')
		if j < 0 {
			L = append(L, lineRange{start, len(n)})
			break
		}
		L = append(L, lineRange{start, start + j})
		start += j + 1
	}
	d.lines = L
	return L
}

func (d *doc) text(i int) string {
	l := d.lines[i]
	return d.n[l.start:l.end]
}

// lineCol returns the 1-based line and column (in characters) of offset t in n.
func (d *doc) lineCol(t int) (int, int) {
	if t > len(d.n) {
		t = len(d.n)
	}
	line := strings.Count(d.n[:t], "\n") + 1
	ls := strings.LastIndexByte(d.n[:t], '\n') + 1
	return line, utf8.RuneCountInString(d.n[ls:t]) + 1
}

// lineNumbers returns the 1-based line of each match's start, counting
// newlines once through the content.
func (d *doc) lineNumbers(ms []match) []int {
	order := make([]int, len(ms))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ms[a].start, ms[b].start) })
	out := make([]int, len(ms))
	line, pos := 1, 0
	for _, i := range order {
		t := min(ms[i].start, len(d.n))
		line += strings.Count(d.n[pos:t], "\n")
		pos = t
		out[i] = line
	}
	return out
}

// query is an old (or new) text prepared for matching.
type query struct {
	text  string   // CRLF → LF, leading BOM dropped
	lines []string // text split into lines; a final newline adds no line
	nl    bool     // text ends with a newline
	cache keyCache
}

func newQuery(s string) *query {
	s = strings.TrimPrefix(normNL(s), byteOrderMark)
	q := &query{text: s}
	if s == "" {
		return q
	}
	body := s
	if strings.HasSuffix(body, "\n") {
		q.nl = true
		body = body[:len(body)-1]
	}
	q.lines = strings.Split(body, "\n")
	return q
}

func normNL(s string) string {
	if strings.Contains(s, "\r\n") {
		return strings.ReplaceAll(s, "\r\n", "\n")
	}
	return s
}

func (d *doc) atEOF(m match) bool {
	return m.end == len(d.n) || (m.end == len(d.n)-1 && d.finalNL)
}

// crlfFor tells whether the replacement of m gets CRLF line endings: those of
// the matched region, or of the line it sits on.
func (d *doc) crlfFor(m match) bool {
	if len(d.crs) == 0 {
		return false
	}
	if total := strings.Count(d.n[m.start:m.end], "\n"); total > 0 {
		cr := sort.SearchInts(d.crs, m.end) - sort.SearchInts(d.crs, m.start)
		return cr*2 >= total
	}
	if j := strings.IndexByte(d.n[m.end:], '\n'); j >= 0 {
		return d.isCR(m.end + j)
	}
	if i := strings.LastIndexByte(d.n[:m.start], '\n'); i >= 0 {
		return d.isCR(i)
	}
	return false
}

// withEndings gives the replacement nt of m the file's line endings. When nt
// has as many line breaks as the matched span, line i keeps the ending of the
// span's line i, so a file that mixes endings line by line keeps them;
// otherwise every line takes the span's dominant ending (crlfFor).
func (d *doc) withEndings(m match, nt string) string {
	if len(d.crs) == 0 || !strings.Contains(nt, "\n") {
		return nt
	}
	span := d.n[m.start:m.end]
	k := strings.Count(span, "\n")
	if k != strings.Count(nt, "\n") {
		if d.crlfFor(m) {
			return strings.ReplaceAll(nt, "\n", "\r\n")
		}
		return nt
	}
	var b strings.Builder
	b.Grow(len(nt) + k)
	p := m.start
	for {
		i := strings.IndexByte(nt, '\n')
		if i < 0 {
			b.WriteString(nt)
			return b.String()
		}
		j := p + strings.IndexByte(d.n[p:m.end], '\n')
		b.WriteString(nt[:i])
		if d.isCR(j) {
			b.WriteByte('\r')
		}
		b.WriteByte('\n')
		nt, p = nt[i+1:], j+1
	}
}

// KeepLineEndings fits a whole new content to the file it replaces: content
// with only LF line breaks and no BOM takes the old file's BOM, and its CRLF
// when most of the old file's lines end so. Content with any CR or its own
// BOM is the writer's choice and stays as given, and so does empty content.
func KeepLineEndings(old, content string) (out string, crlf, bom bool) {
	if content == "" || strings.HasPrefix(content, byteOrderMark) || strings.Contains(content, "\r") {
		return content, false, false
	}
	bom = strings.HasPrefix(old, byteOrderMark)
	cr := strings.Count(old, "\r\n")
	crlf = cr > strings.Count(old, "\n")-cr && strings.Contains(content, "\n")
	out = content
	if crlf {
		out = strings.ReplaceAll(out, "\n", "\r\n")
	}
	if bom {
		out = byteOrderMark + out
	}
	return out, crlf, bom
}
