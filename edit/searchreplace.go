package edit

import (
	"fmt"
	"regexp"
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
// marker lengths, a missing space, a trailing ">", CRLF, and prose or fences
// between blocks. A block is whole lines. An empty SEARCH only fills an empty
// file (Cline replaces the whole file): a model sending it to a non-empty file
// more often means "add this" than "discard everything". The separator is the
// first line written exactly "=======", else the first of three or more '=',
// so a Markdown underline in a SEARCH section stays content.

var (
	searchRe    = regexp.MustCompile(`^(?:-{3,}|<{3,})[ \t]*(?i:search)[ \t]*>?[ \t]*$`)
	separatorRe = regexp.MustCompile(`^={3,}[ \t]*$`)
	replaceRe   = regexp.MustCompile(`^(?:\+{3,}|>{3,})[ \t]*(?i:replace)[ \t]*>?[ \t]*$`)
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

// ParseSearchReplace parses SEARCH/REPLACE blocks into edits, in order.
func ParseSearchReplace(diff string) ([]Edit, error) {
	lines := strings.Split(strings.ReplaceAll(diff, "\r\n", "\n"), "\n")
	var edits []Edit
	block := 0
	for i := 0; i < len(lines); i++ {
		if !searchRe.MatchString(lines[i]) {
			continue // outside a block: prose, fences, stray markers
		}
		block++
		start := i
		// Find the end of the SEARCH section: the separator, or a marker
		// that should not be there.
		end, sep := -1, -1
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
				sep = j
				break
			}
		}
		if sep < 0 && len(seps) > 0 {
			sep = seps[0]
		}
		if sep < 0 {
			msg := "SEARCH section has no ======= separator"
			switch {
			case end < 0:
				msg += " before the end of the diff"
			case replaceRe.MatchString(lines[end]):
				msg += fmt.Sprintf(" before the REPLACE marker on line %d", end+1)
			default:
				msg += fmt.Sprintf(" before the next SEARCH marker on line %d", end+1)
			}
			return nil, &SearchReplaceError{Block: block, Line: start + 1, Msg: msg, Truncated: end < 0}
		}
		// The REPLACE section runs to the REPLACE marker.
		stop := -1
		for j := sep + 1; j < len(lines); j++ {
			if replaceRe.MatchString(lines[j]) {
				stop = j
				break
			}
			if searchRe.MatchString(lines[j]) {
				return nil, &SearchReplaceError{Block: block, Line: start + 1,
					Msg: fmt.Sprintf("missing +++++++ REPLACE marker: the next SEARCH marker (line %d) comes first", j+1)}
			}
		}
		if stop < 0 {
			return nil, &SearchReplaceError{Block: block, Line: start + 1, Truncated: true,
				Msg: "missing +++++++ REPLACE marker before the end of the diff"}
		}
		edits = append(edits, Edit{OldText: joinLines(lines[start+1 : sep]), NewText: joinLines(lines[sep+1 : stop])})
		i = stop
	}
	if block == 0 {
		return nil, &SearchReplaceError{Msg: "no SEARCH/REPLACE block found: each block is \"------- SEARCH\", the lines to find, \"=======\", the new lines, \"+++++++ REPLACE\""}
	}
	return edits, nil
}

func joinLines(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}
