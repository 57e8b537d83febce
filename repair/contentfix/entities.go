package contentfix

import (
	"slices"
	"strings"

	"github.com/toolguard/toolguard/internal/jsonesc"
)

// HTML entities are decoded on evidence in the value, never by model family:
// real escaping code (s.replace(/&/g, "&amp;"), a table of entities) must
// come through byte for byte, while a model that encoded all of its output
// (cd app &amp;&amp; make) is decoded one level. A value is encoded when
// every <, >, & in it is written as an entity, no quote character appears
// both raw and encoded, and at least one entity stands where code uses the
// character: an operator outside a string literal (see codeEntity).

// DecodeHTMLEntities decodes one level of HTML entities in s when s carries
// the evidence above. path is the file s is written to ("" for a value that
// is no file's text, such as a shell command): markup files keep their
// entities.
func DecodeHTMLEntities(s, path string) (string, bool) {
	if !HTMLEncoded(path, s) {
		return s, false
	}
	return decodeEntities(s), true
}

// DecodeHTMLEntitiesTogether decodes values sent together, such as an
// edit's old and new text, all or none: decoding one alone would make the
// edit replace other text than the model meant.
func DecodeHTMLEntitiesTogether(path string, values ...string) ([]string, bool) {
	if !HTMLEncoded(path, values...) {
		return values, false
	}
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = decodeEntities(v)
	}
	return out, true
}

// HTMLEncoded reports whether values sent together are uniformly encoded
// with at least one entity in a code position, and path is neither markup
// nor prose.
func HTMLEncoded(path string, values ...string) bool {
	if isMarkupPath(path) || isProsePath(path) || !slices.ContainsFunc(values, func(v string) bool { return strings.Contains(v, "&") }) {
		return false
	}
	var all entityStats
	for _, v := range values {
		st, ok := scanEntities(v)
		if !ok {
			return false
		}
		all.add(st)
	}
	if all.rawDouble && all.encDouble || all.rawSingle && all.encSingle {
		return false
	}
	for _, v := range values {
		if hasCodeEntity(v) {
			return true
		}
	}
	return false
}

// entityStats records which quote characters a value holds raw and encoded.
type entityStats struct {
	rawDouble, encDouble, rawSingle, encSingle bool
}

func (s *entityStats) add(o entityStats) {
	s.rawDouble = s.rawDouble || o.rawDouble
	s.encDouble = s.encDouble || o.encDouble
	s.rawSingle = s.rawSingle || o.rawSingle
	s.encSingle = s.encSingle || o.encSingle
}

// scanEntities checks that v has no raw < or > and no & that does not start
// an entity.
func scanEntities(v string) (entityStats, bool) {
	var st entityStats
	if strings.ContainsAny(v, "<>") {
		return st, false
	}
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '"':
			st.rawDouble = true
		case '\'':
			st.rawSingle = true
		case '&':
			r, n := entityAt(v[i:])
			if n == 0 {
				return st, false
			}
			switch r {
			case '"':
				st.encDouble = true
			case '\'':
				st.encSingle = true
			}
			i += n - 1
		}
	}
	return st, true
}

// decodeEntities decodes one level: "&amp;lt;" becomes "&lt;".
func decodeEntities(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '&' {
			continue
		}
		r, n := entityAt(s[i:])
		if n == 0 {
			continue
		}
		b.WriteString(s[last:i])
		b.WriteByte(r)
		i += n - 1
		last = i + 1
	}
	b.WriteString(s[last:])
	return b.String()
}

// entityAt decodes the entity at the start of s, returning its character
// and length (0: none). Only the characters HTML escaping produces count,
// by name or number: the whole HTML table would turn "?a=1&copy=2" into
// "?a=1©=2", and a model that encodes its code uses no other.
func entityAt(s string) (byte, int) {
	for _, e := range namedEntities {
		if strings.HasPrefix(s, e.name) {
			return e.char, len(e.name)
		}
	}
	if len(s) < 4 || s[1] != '#' {
		return 0, 0
	}
	i, base := 2, 10
	if s[2] == 'x' || s[2] == 'X' {
		i, base = 3, 16
	}
	start, r := i, 0
	for ; i < len(s) && i-start < 8; i++ {
		var v byte
		var ok bool
		if base == 16 {
			v, ok = jsonesc.HexDigit(s[i])
		} else if isDigit(s[i]) {
			v, ok = s[i]-'0', true
		}
		if !ok {
			break
		}
		r = r*base + int(v)
	}
	if i == start || i >= len(s) || s[i] != ';' {
		return 0, 0
	}
	switch r {
	case '<', '>', '&', '"', '\'':
		return byte(r), i + 1
	}
	return 0, 0
}

var namedEntities = []struct {
	name string
	char byte
}{
	{"&lt;", '<'},
	{"&gt;", '>'},
	{"&amp;", '&'},
	{"&quot;", '"'},
	{"&apos;", '\''},
}

// DecodeDiffHTMLEntities decodes a diff (SEARCH/REPLACE blocks, a patch)
// one level when the texts of its edits, judged together, are encoded and
// none of the files it changes is markup. The diff's own markers hold no
// entity, but may hold a raw < (<<<<<<< SEARCH), so they are not judged.
func DecodeDiffHTMLEntities(diff string, paths, texts []string) (string, bool) {
	if slices.ContainsFunc(paths, isMarkupPath) || !HTMLEncoded("", texts...) {
		return diff, false
	}
	return decodeEntities(diff), true
}
