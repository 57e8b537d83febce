package proxy

import (
	"bytes"
	"slices"
	"unicode/utf8"

	"github.com/toolguard/toolguard/internal/jsonesc"
	"github.com/toolguard/toolguard/repair"
)

// The proxy rewrites JSON in place, replacing only the bytes of the values
// it changes, so every other byte of the answer reaches the client as sent.

type edit struct {
	start, end int
	text       []byte
	// quote: text goes out as a JSON string, quoted as it is written, so
	// a repaired call's megabyte of arguments is not quoted into a
	// buffer of its own first.
	quote bool
}

// applyEdits returns doc with the edits applied; they must not overlap.
func applyEdits(doc []byte, edits []edit) []byte {
	if len(edits) == 0 {
		return doc
	}
	n := len(doc)
	for _, e := range edits {
		n += len(e.text) - (e.end - e.start)
		if e.quote {
			n += 2 // at least
		}
	}
	return appendEdited(make([]byte, 0, n), doc, edits)
}

// appendEdited appends doc with the edits applied to out.
func appendEdited(out, doc []byte, edits []edit) []byte {
	if len(edits) > 1 {
		slices.SortFunc(edits, func(a, b edit) int { return a.start - b.start })
	}
	at := 0
	for _, e := range edits {
		out = append(out, doc[at:e.start]...)
		if e.quote {
			out = appendQuotedJSON(out, e.text)
		} else {
			out = append(out, e.text...)
		}
		at = e.end
	}
	return append(out, doc[at:]...)
}

// valueAt returns the span of the value at path in doc: object keys as
// strings, array positions as ints.
func valueAt(doc []byte, path ...any) (start, end int, ok bool) {
	i := skipSpace(doc, 0)
	for _, step := range path {
		at := -1
		find := func(wanted bool, v int) int {
			if wanted {
				at = v
				return -1
			}
			return skipValue(doc, v)
		}
		switch k := step.(type) {
		case string:
			members(doc, i, func(key []byte, v int) int { return find(string(key) == k, v) })
		case int:
			elements(doc, i, func(n, v int) int { return find(n == k, v) })
		}
		if at < 0 {
			return 0, 0, false
		}
		i = at
	}
	e := skipValue(doc, i)
	if e < 0 {
		return 0, 0, false
	}
	return i, e, true
}

func skipSpace(doc []byte, i int) int {
	for i < len(doc) && (doc[i] == ' ' || doc[i] == '\t' || doc[i] == '\n' || doc[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string at doc[i], or -1.
func skipString(doc []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(doc[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		// An odd run of backslashes escapes the quote.
		n := 0
		for b := j - 1; b > i && doc[b] == '\\'; b-- {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
		j++
	}
}

// skipValue returns the index after the value starting at doc[i], or -1.
func skipValue(doc []byte, i int) int {
	if i >= len(doc) {
		return -1
	}
	switch doc[i] {
	case '"':
		return skipString(doc, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(doc); j++ {
			switch doc[j] {
			case '"':
				if j = skipString(doc, j); j < 0 {
					return -1
				}
				j--
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	default:
		j := i
		for j < len(doc) && doc[j] != ',' && doc[j] != '}' && doc[j] != ']' && doc[j] != ' ' &&
			doc[j] != '\t' && doc[j] != '\n' && doc[j] != '\r' {
			j++
		}
		if j == i {
			return -1
		}
		return j
	}
}

// jsonString encodes s as a JSON string, leaving <, > and & as they are.
func jsonString[T ~string | ~[]byte](s T) []byte {
	return appendQuotedJSON(nil, s)
}

// appendQuotedJSON appends s encoded as a JSON string to dst, byte for
// byte as encoding/json's Encoder with SetEscapeHTML(false) encodes it
// (appendJSONString, the record's, differs there), with room made first:
// growing a repaired call's megabyte of arguments by doubling as it is
// quoted would allocate and copy it several times.
func appendQuotedJSON[T ~string | ~[]byte](dst []byte, s T) []byte {
	if cap(dst)-len(dst) < len(s)+2 {
		dst = slices.Grow(dst, len(s)+len(s)/4+2) // room for a quarter escaped
	}
	return repair.AppendJSONString(dst, s)
}

// A small JSON walker for stream events: it finds the few members the proxy
// reads without decoding (or validating) the rest, which a stream of tens of
// thousands of events cannot afford.

type span struct{ start, end int }

// members calls fn for each member of the object at doc[i] with its key
// (unquoted, valid during the call) and the offset of its value; fn returns
// the offset after the value, or -1 to stop. members returns the offset
// after the object, or -1.
func members(doc []byte, i int, fn func(key []byte, v int) int) int {
	var keyBuf []byte
	return items(doc, i, '{', '}', func(_, i int) int {
		if doc[i] != '"' {
			return -1
		}
		ke := skipString(doc, i)
		if ke < 0 {
			return -1
		}
		key := doc[i+1 : ke-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			var ok bool
			if keyBuf, ok = appendUnquoted(keyBuf[:0], doc[i:ke]); !ok {
				return -1
			}
			key = keyBuf
		}
		i = skipSpace(doc, ke)
		if i >= len(doc) || doc[i] != ':' {
			return -1
		}
		i = skipSpace(doc, i+1)
		if i >= len(doc) {
			return -1
		}
		return fn(key, i)
	})
}

// elements is members for the elements of an array, by position.
func elements(doc []byte, i int, fn func(n, v int) int) int {
	return items(doc, i, '[', ']', fn)
}

// items walks the members or elements between the brackets opening and
// closing at doc[i], item reading each.
func items(doc []byte, i int, opening, closing byte, item func(n, at int) int) int {
	if i >= len(doc) || doc[i] != opening {
		return -1
	}
	i = skipSpace(doc, i+1)
	if i < len(doc) && doc[i] == closing {
		return i + 1
	}
	for n := 0; ; n++ {
		if i >= len(doc) {
			return -1
		}
		if i = item(n, i); i < 0 {
			return -1
		}
		i = skipSpace(doc, i)
		if i >= len(doc) {
			return -1
		}
		switch doc[i] {
		case ',':
			i = skipSpace(doc, i+1)
		case closing:
			return i + 1
		default:
			return -1
		}
	}
}

// readInt reads the integer at doc[i] into *n; it returns the offset after
// it, or -1.
func readInt(doc []byte, i int, n *int) int {
	j := i
	if j < len(doc) && doc[j] == '-' {
		j++
	}
	start, v := j, 0
	for j < len(doc) && '0' <= doc[j] && doc[j] <= '9' && j-start < 9 {
		v = v*10 + int(doc[j]-'0')
		j++
	}
	if j == start || j < len(doc) && ('0' <= doc[j] && doc[j] <= '9' || doc[j] == '.' || doc[j] == 'e' || doc[j] == 'E') {
		return -1
	}
	if doc[i] == '-' {
		v = -v
	}
	*n = v
	return j
}

// readString sets *s to the span of the string at doc[i], quotes included,
// when the value is a string; it returns the offset after the value, or -1.
func readString(doc []byte, i int, s *span) int {
	end := skipValue(doc, i)
	if end >= 0 && doc[i] == '"' {
		*s = span{i, end}
	}
	return end
}

// readText is readString for the string's text.
func readText(doc []byte, i int, text *[]byte) int {
	var s span
	end := readString(doc, i, &s)
	if s.end > 0 {
		*text, _ = appendUnquoted(nil, doc[s.start:s.end])
	}
	return end
}

// appendUnquoted appends the text of the JSON string q to dst. Invalid
// UTF-8 is kept; a lone surrogate becomes U+FFFD, as encoding/json does.
func appendUnquoted(dst, q []byte) ([]byte, bool) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return dst, false
	}
	s := q[1 : len(q)-1]
	for len(s) > 0 {
		k := bytes.IndexByte(s, '\\')
		if k < 0 {
			return append(dst, s...), true
		}
		dst = append(dst, s[:k]...)
		s = s[k:]
		if len(s) < 2 {
			return dst, false
		}
		if c, ok := jsonesc.Simple(s[1]); ok {
			dst = append(dst, c)
			s = s[2:]
			continue
		}
		r, n := jsonesc.Unicode(s)
		if n == 0 {
			return dst, false
		}
		dst = utf8.AppendRune(dst, r)
		s = s[n:]
	}
	return dst, true
}
