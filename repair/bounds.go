package repair

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Whatever a model sends, what toolguard says back stays small.

// maxQuoted bounds, in characters, a name or value quoted.
const maxQuoted = 64

// maxListed bounds the names listed in one message.
const maxListed = 20

// quote returns s as %q does, or for a long s its start and its length.
func quote(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	n := utf8.RuneCountInString(s)
	if n <= maxQuoted {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%s… (%d characters)", strconv.Quote(clipRunes(s, maxQuoted)), n)
}

// appendQuote appends quote(s) to dst; a short s costs no string of its own.
func appendQuote(dst []byte, s string) []byte {
	if len(s) <= maxQuoted {
		return appendStrconvQuote(dst, s)
	}
	return append(dst, quote(s)...)
}

// appendStrconvQuote is strconv.AppendQuote, which checks every character
// for printability; a name of printable ASCII without quote or backslash,
// which parameter and tool names are, is copied between quotes as it
// would write it.
func appendStrconvQuote(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c > '~' || c == '"' || c == '\\' {
			return strconv.AppendQuote(dst, s)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// quotedDetail is before + quote(name) + middle + strconv.Quote(canonical),
// as fmt's "%s%s%s%q" makes it, in one allocation: the detail of a rename,
// made at every repaired call.
func quotedDetail(before, name, middle, canonical string) string {
	var buf [160]byte
	b := append(buf[:0], before...)
	b = appendQuote(b, name)
	b = append(b, middle...)
	return string(appendStrconvQuote(b, canonical))
}

// clipRunes returns the first n characters of s, reading no further.
func clipRunes(s string, n int) string {
	end := 0
	for range n {
		if end >= len(s) {
			break
		}
		_, size := utf8.DecodeRuneInString(s[end:])
		end += size
	}
	return s[:end]
}

// listNames joins the first maxListed names and counts the rest.
func listNames(names []string) string {
	if len(names) <= maxListed {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:maxListed], ", "), len(names)-maxListed)
}

// smallestKeys returns the k smallest keys of m that keep accepts, sorted,
// and how many it accepts, in O(len(m)·log k).
func smallestKeys(m map[string]any, k int, keep func(string) bool) ([]string, int) {
	out := make([]string, 0, k)
	total := 0
	for key := range m {
		if !keep(key) {
			continue
		}
		total++
		if k <= 0 || len(out) == k && key >= out[k-1] {
			continue
		}
		i, _ := slices.BinarySearch(out, key)
		if len(out) == k {
			out = out[:k-1]
		}
		out = slices.Insert(out, i, key)
	}
	return out, total
}

// clipText returns s, or its first n characters and an ellipsis.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if c := clipRunes(s, n); len(c) < len(s) {
		return c + "…"
	}
	return s
}
