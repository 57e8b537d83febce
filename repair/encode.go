package repair

import (
	"bytes"
	"cmp"
	"encoding/json"
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// EncodeArgs renders arguments with EncodeJSON; nil stays nil.
func EncodeArgs(args map[string]any) ([]byte, error) {
	if args == nil {
		return nil, nil
	}
	return EncodeJSON(args)
}

// EncodeJSON renders a JSON value compactly, keys sorted, without HTML
// escaping: file content such as "<div>" stays itself. The output is byte
// for byte encoding/json's (an Encoder with SetEscapeHTML(false)); the
// values the parsers produce are written directly, into a buffer sized
// once, because a verdict re-encodes whole file contents and encoding/json
// spends most of that time growing its buffer and reflecting.
func EncodeJSON(v any) ([]byte, error) {
	if m, ok := v.(map[string]any); ok && m != nil {
		// An object's members are sized in key order, once sorted: a pass
		// over the map to size them would visit their values in the map's
		// order, a cache miss a member of a large object.
		var small [8]member
		members := sortedMembers(m, small[:0])
		n := 2
		for _, e := range members {
			n += len(e.k) + 4 + encodedSize(e.v)
		}
		if out, ok := appendMembers(make([]byte, 0, n), members); ok {
			return out, nil
		}
	} else if out, ok := appendJSON(make([]byte, 0, encodedSize(v)), v); ok {
		return out, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// AppendJSON appends EncodeJSON's encoding of v to dst.
func AppendJSON(dst []byte, v any) ([]byte, error) {
	n := len(dst)
	if out, ok := appendJSON(dst, v); ok {
		return out, nil
	}
	raw, err := EncodeJSON(v)
	return append(dst[:n], raw...), err
}

// encodedSize estimates the encoding's length, with room for the escapes
// of source code (quotes, backslashes, newlines), so that a large content
// is rarely copied to a larger buffer.
func encodedSize(v any) int {
	switch x := v.(type) {
	case string:
		return len(x) + len(x)/8 + 2
	case map[string]any:
		n := 2
		for k, e := range x {
			n += len(k) + 4 + encodedSize(e)
		}
		return n
	case []any:
		n := 2
		for _, e := range x {
			n += 1 + encodedSize(e)
		}
		return n
	}
	return 8
}

// appendJSON appends v's encoding; false for a value it does not write
// (another type, an invalid json.Number), left to encoding/json whole so
// errors stay its own.
func appendJSON(dst []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), true
	case string:
		return appendJSONString(dst, x), true
	case bool:
		if x {
			return append(dst, "true"...), true
		}
		return append(dst, "false"...), true
	case json.Number:
		if x == "" {
			x = "0" // as encoding/json writes the zero Number
		}
		if !isNumberLiteral(string(x)) {
			return dst, false
		}
		return append(dst, x...), true
	case []any:
		if x == nil {
			return append(dst, "null"...), true
		}
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var ok bool
			if dst, ok = appendJSON(dst, e); !ok {
				return dst, false
			}
		}
		return append(dst, ']'), true
	case map[string]any:
		return appendJSONObject(dst, x)
	}
	return dst, false
}

func appendJSONObject(dst []byte, m map[string]any) ([]byte, bool) {
	if m == nil {
		return append(dst, "null"...), true
	}
	// A tool's arguments have a few parameters: their members are sorted on
	// the stack.
	var small [8]member
	return appendMembers(dst, sortedMembers(m, small[:0]))
}

// sortedMembers returns m's members in key order, in members when it has
// room. They are taken in one pass over the map and sorted with their
// values, each with its key's first bytes beside it: looking sorted keys
// up again, or comparing keys stored apart, would visit a large object's
// memory in random order, a cache miss a member.
func sortedMembers(m map[string]any, members []member) []member {
	if len(m) >= splitMembers {
		return sortedLarge(m)
	}
	if cap(members) < len(m) {
		members = make([]member, 0, len(m))
	}
	for k, v := range m {
		members = append(members, member{keyPrefix(k), k, v})
	}
	sortMembers(members)
	return members
}

// sortedLarge is sortedMembers of an object that outgrows the cache. The
// map gives its members in the order of their hashes, while their keys lie
// in memory in the order they were made (a parser's, the text's): reading
// each key's prefix in the map's order would miss the cache a member. The
// members are first spread by where their keys lie (byKeyAddress), and
// their prefixes read in that order.
func sortedLarge(m map[string]any) []member {
	members, tmp := make([]member, 0, len(m)), make([]member, len(m))
	lo, hi := ^uintptr(0), uintptr(0)
	for k, v := range m {
		members = append(members, member{k: k, v: v})
		if k != "" {
			a := keyAddress(k)
			lo, hi = min(lo, a), max(hi, a)
		}
	}
	byKeyAddress(members, tmp, lo, hi)
	for i := range tmp {
		tmp[i].pre = keyPrefix(tmp[i].k)
	}
	splitSort(tmp, members)
	sortRuns(tmp)
	return tmp
}

// keyAddress is where k's bytes lie, to order reads of many keys.
func keyAddress(k string) uintptr { return uintptr(unsafe.Pointer(unsafe.StringData(k))) }

// byKeyAddress writes src into dst ordered by where their keys lie, in 256
// ranges of addresses between lo and hi (the empty keys first): the keys
// of a range are a fraction of the object's, read within the cache.
func byKeyAddress(src, dst []member, lo, hi uintptr) {
	shift := 0
	for hi > lo && (hi-lo)>>shift >= 256 {
		shift++
	}
	bucket := func(k string) byte {
		if k == "" {
			return 0
		}
		return byte((keyAddress(k) - lo) >> shift)
	}
	var count, at [256]int
	for i := range src {
		count[bucket(src[i].k)]++
	}
	pos := 0
	for b, n := range count {
		at[b] = pos
		pos += n
	}
	for i := range src {
		b := bucket(src[i].k)
		dst[at[b]] = src[i]
		at[b]++
	}
}

// radixMembers is the number of members from which sortMembers sorts by
// radix: below it, a comparison sort is as fast.
const radixMembers = 256

// sortMembers sorts members by key. A large object is sorted by its keys'
// first eight bytes a byte at a time (a radix sort, linear in the members,
// in sequential passes), skipping the bytes all keys share, then each run
// of keys sharing those bytes by comparison: a comparison sort of a large
// object costs a factor log n more per member, and compares members
// scattered in memory.
func sortMembers(members []member) {
	if len(members) < radixMembers {
		slices.SortFunc(members, func(a, b member) int {
			if a.pre != b.pre {
				return cmp.Compare(a.pre, b.pre)
			}
			return strings.Compare(a.k, b.k)
		})
		return
	}
	radixSort(members, make([]member, len(members)), 56)
	sortRuns(members)
}

// sortRuns sorts members sorted by prefix: each run of keys sharing their
// prefix by comparison.
func sortRuns(members []member) {
	for i := 0; i < len(members); {
		j := i + 1
		for j < len(members) && members[j].pre == members[i].pre {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(members[i:j], func(a, b member) int { return strings.Compare(a.k, b.k) })
		}
		i = j
	}
}

// splitMembers is the number of members from which an object outgrows a
// core's cache (40 bytes a member, 640 KiB): sortMembers then splits it
// first (splitSort).
const splitMembers = 16 << 10

// splitSort sorts a large object's members by prefix: it spreads them into
// buckets by the most significant byte their prefixes do not all share,
// then sorts each bucket by radix on the bytes below (radixSort) while the
// bucket stays in the cache. A radix sort of the whole object made a pass
// over all of its members for every byte, each pass missing the cache.
func splitSort(members, tmp []member) {
	var diff uint64
	for i := range members {
		diff |= members[i].pre ^ members[0].pre
	}
	if diff == 0 {
		return
	}
	shift := (63 - bits.LeadingZeros64(diff)) &^ 7
	count := scatter(members, tmp, shift)
	copy(members, tmp)
	pos := 0
	for _, n := range count {
		if n > 1 {
			radixSort(members[pos:pos+n], tmp[pos:pos+n], shift-8)
		}
		pos += n
	}
}

// radixSort sorts members by the bytes of their prefixes from the one at
// top down, least significant first, skipping a byte they all share; tmp
// has the length of members.
func radixSort(members, tmp []member, top int) {
	src, dst := members, tmp
	for shift := 0; shift <= top; shift += 8 {
		b0 := byte(src[0].pre >> shift)
		shared := true
		for i := range src {
			if byte(src[i].pre>>shift) != b0 {
				shared = false
				break
			}
		}
		if shared {
			continue // a byte every prefix shares orders nothing
		}
		scatter(src, dst, shift)
		src, dst = dst, src
	}
	if &src[0] != &members[0] {
		copy(members, src)
	}
}

// scatter writes src into dst ordered by the byte of their prefixes at
// shift, stably, and returns how many members each byte has.
func scatter(src, dst []member, shift int) [256]int {
	var count, at [256]int
	for i := range src {
		count[byte(src[i].pre>>shift)]++
	}
	pos := 0
	for b, n := range count {
		at[b] = pos
		pos += n
	}
	for i := range src {
		b := byte(src[i].pre >> shift)
		dst[at[b]] = src[i]
		at[b]++
	}
	return count
}

func appendMembers(dst []byte, members []member) ([]byte, bool) {
	dst = append(dst, '{')
	for i, e := range members {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, e.k)
		dst = append(dst, ':')
		var ok bool
		if dst, ok = appendJSON(dst, e.v); !ok {
			return dst, false
		}
	}
	return append(dst, '}'), true
}

// member is an object's member, for encoding in key order.
type member struct {
	pre uint64
	k   string
	v   any
}

// keyPrefix is k's first eight bytes, big-endian and padded with zeros:
// keys whose prefixes differ compare as the prefixes do.
func keyPrefix(k string) uint64 {
	var p uint64
	for i := range 8 {
		p <<= 8
		if i < len(k) {
			p |= uint64(k[i])
		}
	}
	return p
}

const hexDigits = "0123456789abcdef"

// appendJSONString quotes s as encoding/json does without HTML escaping:
// short escapes for \b \f \n \r \t, \u00XX for other control bytes,
// U+FFFD for invalid UTF-8, and U+2028 and U+2029 escaped.
func appendJSONString(dst []byte, s string) []byte { return AppendJSONString(dst, s) }

// AppendJSONString appends s quoted as EncodeJSON quotes a string: byte for
// byte encoding/json's Encoder with SetEscapeHTML(false). It takes bytes as
// well, so that a caller holding a large value as bytes quotes it without
// a copy.
func AppendJSONString[T ~string | ~[]byte](dst []byte, s T) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		i = plainWords(s, i)
		for i < len(s) && plainASCII[s[i]] {
			i++
		}
		if i == len(s) {
			break
		}
		if b := s[i]; b < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			dst = appendEscapedByte(dst, b)
			i++
			start = i
			continue
		}
		// A few bytes as a string: on the stack for a byte slice.
		c, size := utf8.DecodeRuneInString(string(s[i:min(len(s), i+utf8.UTFMax)]))
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// plainWords skips the bytes of s from i that a JSON string holds as they
// are, eight at a time while a whole word of them is (plainASCII), and
// returns where it stopped. File content has long runs of them between its
// escapes: a byte at a time, the scan was most of encoding arguments_json.
func plainWords[T ~string | ~[]byte](s T, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		quote, backslash := x^(ones*'"'), x^(ones*'\\')
		// A byte below 0x20, a quote, a backslash, or one of 0x80 and above.
		if ((x-ones*0x20)&^x|(quote-ones)&^quote|(backslash-ones)&^backslash|x)&highs != 0 {
			return i
		}
	}
	return i
}

// plainASCII marks the bytes a JSON string holds as they are.
var plainASCII = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func appendEscapedByte(dst []byte, b byte) []byte {
	switch b {
	case '\\', '"':
		return append(dst, '\\', b)
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
}

// isNumberLiteral reports whether s is a JSON number literal, the check
// encoding/json makes before writing a json.Number.
func isNumberLiteral(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		i = skipDigits(s, i+1)
	default:
		return false
	}
	if i+1 < len(s) && s[i] == '.' && isDigit(s[i+1]) {
		i = skipDigits(s, i+2)
	}
	if i+1 < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if s[i] == '+' || s[i] == '-' {
			i++
			if i == len(s) {
				return false
			}
		}
		i = skipDigits(s, i)
	}
	return i == len(s)
}

func skipDigits(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
