package edit

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// SEARCH/REPLACE blocks, as Cline's replace_in_file takes them:
//
//	------- SEARCH
//	exact lines to find
//	=======
//	lines to put instead
//	+++++++ REPLACE
//
// Also accepted: the legacy "<<<<<<< SEARCH" and ">>>>>>> REPLACE", other
// marker lengths, a missing space, a trailing ">" (or "<" after REPLACE),
// CRLF, and prose or fences between blocks. A block is whole lines. An empty
// SEARCH only fills an empty file (Cline replaces the whole file): a model
// sending it to a non-empty file more often means "add this" than "discard
// everything". The separator is the first line written exactly "=======",
// else the first of three or more '=', so a Markdown underline in a SEARCH
// section stays content.
//
// Roo Code's apply_diff dialect is read as Roo reads it: right after the
// SEARCH marker, a header of ":start_line:N" and ":end_line:N" lines and the
// "-------" line that ends it (searchreplace_roo.go). A line that starts
// with a backslash before a marker ("\=======") is that marker as content.
// A marker left where it would be written into the file is refused, naming
// its line: see checkBlock.

var (
	searchRe    = regexp.MustCompile(`^(?:-{3,}|<{3,})[ \t]*(?i:search)[ \t]*>?[ \t]*$`)
	separatorRe = regexp.MustCompile(`^={3,}[ \t]*$`)
	replaceRe   = regexp.MustCompile(`^(?:\+{3,}|>{3,})[ \t]*(?i:replace)[ \t]*[<>]?[ \t]*$`)
)

// SearchReplaceError is a malformed SEARCH/REPLACE diff.
type SearchReplaceError struct {
	Block int // 1-based block number; 0 when the diff has no block
	Line  int // 1-based line of the diff where the problem shows
	Msg   string
	// Truncated: the diff ends inside its last block, before the block's
	// separator or REPLACE marker, as a cut-off output does.
	Truncated bool
}

// Is makes a truncated SearchReplaceError match ErrTruncated.
func (e *SearchReplaceError) Is(target error) bool { return target == ErrTruncated && e.Truncated }

func (e *SearchReplaceError) Error() string {
	if e.Block == 0 {
		return e.Msg
	}
	return fmt.Sprintf("block %d (line %d): %s", e.Block, e.Line, e.Msg)
}

// LooksLikeSearchReplace reports whether s holds a SEARCH/REPLACE block's
// frame: a SEARCH marker line with a separator or REPLACE marker line after
// it. A value that does is read as a diff, whatever parameter carries it.
func LooksLikeSearchReplace(s string) bool {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i, l := range lines {
		if !searchRe.MatchString(l) {
			continue
		}
		for _, m := range lines[i+1:] {
			if separatorRe.MatchString(m) || replaceRe.MatchString(m) {
				return true
			}
		}
		return false
	}
	return false
}

// block is one SEARCH/REPLACE block's frame, as 0-based line indexes.
type block struct {
	num                int
	start, sep, stop   int  // the SEARCH marker, the separator, the REPLACE marker
	body               int  // the first line of the SEARCH text, after the header
	startLine, endLine int  // the header's line hints, 0 when absent
	dash               bool // the header ends with Roo's "-------" line
	roo                bool // "<<<<<<< SEARCH", Roo's (and Aider's) spelling
}

// ParseSearchReplace parses SEARCH/REPLACE blocks into edits, in order.
// An edit's StartLine is its block's ":start_line:" hint.
func ParseSearchReplace(diff string) ([]Edit, error) {
	lines := strings.Split(strings.ReplaceAll(diff, "\r\n", "\n"), "\n")
	var edits []Edit
	n := 0
	prevEnd := -1
	for i := 0; i < len(lines); i++ {
		if !searchRe.MatchString(lines[i]) {
			if err := strayMarker(lines, i, n, prevEnd); err != nil {
				return nil, err
			}
			continue // outside a block: prose, fences
		}
		n++
		b, err := frame(lines, i, n)
		if err != nil {
			return nil, err
		}
		if err := b.readHeader(lines); err != nil {
			return nil, err
		}
		if err := b.check(lines); err != nil {
			return nil, err
		}
		edits = append(edits, Edit{
			OldText:   joinLines(unescape(lines[b.body:b.sep])),
			NewText:   joinLines(unescape(lines[b.sep+1 : b.stop])),
			StartLine: b.startLine,
		})
		i, prevEnd = b.stop, b.stop
	}
	if n == 0 {
		return nil, &SearchReplaceError{Msg: "no SEARCH/REPLACE block found: each block is \"------- SEARCH\", the lines to find, \"=======\", the new lines, \"+++++++ REPLACE\""}
	}
	return edits, nil
}

// frame finds the separator and the REPLACE marker of the block whose
// SEARCH marker is line i. A diff that ends first is a truncation.
func frame(lines []string, i, n int) (*block, error) {
	b := &block{num: n, start: i, sep: -1, stop: -1, body: i + 1, roo: strings.HasPrefix(strings.TrimSpace(lines[i]), "<")}
	// The end of the SEARCH section: the separator, or a marker that
	// should not be there.
	end := -1
	var seps []int
	for j := i + 1; j < len(lines); j++ {
		l := lines[j]
		if searchRe.MatchString(l) || replaceRe.MatchString(l) {
			end = j
			break
		}
		if separatorRe.MatchString(l) {
			seps = append(seps, j)
		}
	}
	// The separator: the first line written exactly "=======", else the
	// first separator-like line.
	for _, j := range seps {
		if strings.TrimRight(lines[j], " \t") == "=======" {
			b.sep = j
			break
		}
	}
	if b.sep < 0 && len(seps) > 0 {
		b.sep = seps[0]
	}
	if b.sep < 0 {
		msg := "SEARCH section has no ======= separator"
		switch {
		case end < 0:
			msg += " before the end of the diff"
		case replaceRe.MatchString(lines[end]):
			msg += fmt.Sprintf(" before the REPLACE marker on line %d", end+1)
		default:
			msg += fmt.Sprintf(" before the next SEARCH marker on line %d", end+1)
		}
		return nil, &SearchReplaceError{Block: n, Line: i + 1, Msg: msg, Truncated: end < 0}
	}
	// The REPLACE section runs to the REPLACE marker.
	for j := b.sep + 1; j < len(lines); j++ {
		if replaceRe.MatchString(lines[j]) {
			b.stop = j
			return b, nil
		}
		if searchRe.MatchString(lines[j]) {
			return nil, &SearchReplaceError{Block: n, Line: i + 1,
				Msg: fmt.Sprintf("missing +++++++ REPLACE marker: the next SEARCH marker (line %d) comes first; end each block with its REPLACE marker before the next one starts", j+1)}
		}
	}
	return nil, &SearchReplaceError{Block: n, Line: i + 1, Truncated: true,
		Msg: "missing +++++++ REPLACE marker before the end of the diff"}
}

// strayMarker refuses a REPLACE marker or an exact "=======" line outside
// any block: the block it belongs to is broken, and which lines it meant
// to hold cannot be told.
func strayMarker(lines []string, i, n, prevEnd int) error {
	l := lines[i]
	what := ""
	switch {
	case replaceRe.MatchString(l):
		what = "REPLACE marker"
	case strings.TrimRight(l, " \t") == "=======":
		what = "======= separator"
	default:
		return nil
	}
	where := "before the first SEARCH marker"
	if prevEnd >= 0 {
		where = fmt.Sprintf("after block %d ended on line %d", n, prevEnd+1)
	}
	// The text's last line has no line end: it may be the start of a
	// longer line that was cut off.
	cut := i == len(lines)-1
	return &SearchReplaceError{Block: n, Line: i + 1, Truncated: cut, Msg: fmt.Sprintf(
		"line %d: a %s %s, outside any block: every block is a SEARCH marker, the lines to find, one =======, the new lines and one REPLACE marker; remove the stray line or add the block's missing marker",
		i+1, what, where)}
}

func joinLines(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// atoiHint reads a line hint's number; 0 when it is no positive number.
func atoiHint(s string) int {
	v, err := strconv.Atoi(s)
	if err != nil || v <= 0 {
		return 0
	}
	return v
}
