package session

import (
	"strings"
	"unsafe"
)

// Session ids are often UUIDs, or end in one ("agent-" + a UUID), in the
// canonical lowercase form that Python's uuid4() and crypto.randomUUID()
// write. The key pool keeps such a UUID as its 16 bytes: a 36-byte UUID
// id then costs 16 bytes. Only that exact form is packed, so unpacking
// gives back the id byte for byte; an id in any other form (upper case,
// no hyphens) is pooled as it is, and never equals a packed one.
const uuidLen = 36

// packUUID reports whether id ends in a canonical lowercase UUID, and
// writes that UUID's 16 bytes to u.
func packUUID(id string, u *[16]byte) bool {
	if len(id) < uuidLen {
		return false
	}
	s := id[len(id)-uuidLen:]
	if s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return false
	}
	var bad byte
	for j, p := range uuidDigits {
		hi, lo := hexValue[s[p]], hexValue[s[p+1]]
		bad |= hi | lo
		u[j] = hi<<4 | lo
	}
	return bad < 16
}

// uuidDigits are the offsets of the 16 digit pairs of a canonical UUID.
var uuidDigits = [16]uint8{0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34}

// hexValue maps a lowercase hex digit to its value, any other byte to 0xff.
var hexValue = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i, c := range "0123456789abcdef" {
		t[c] = byte(i)
	}
	return t
}()

// unpackUUID writes the canonical form of the UUID u to dst[:uuidLen].
func unpackUUID(dst []byte, u []byte) {
	const digits = "0123456789abcdef"
	dst = dst[:uuidLen]
	dst[8], dst[13], dst[18], dst[23] = '-', '-', '-', '-'
	for j, p := range uuidDigits {
		dst[p], dst[p+1] = digits[u[j]>>4], digits[u[j]&15]
	}
}

// key returns the id of entry idx. A packed id is unpacked into the
// shard's scratch buffer: use the result before the next call, under the
// shard's lock.
func (s *shard) key(idx int32) string {
	e := s.ents.at(idx)
	switch {
	case e.flags&longKey != 0:
		return s.long[idx]
	case e.flags&uuidKey != 0:
		p := s.keys.str(e.kblock, e.koff, e.klen)
		n := len(p) - 16
		copy(s.kbuf[:n], p)
		unpackUUID(s.kbuf[n:], []byte(p[n:]))
		return unsafe.String(&s.kbuf[0], n+uuidLen)
	}
	return s.keys.str(e.kblock, e.koff, e.klen)
}

// keyIs reports whether entry idx is the session id, without unpacking.
func (s *shard) keyIs(idx int32, id string) bool {
	e := s.ents.at(idx)
	switch {
	case e.flags&longKey != 0:
		return s.long[idx] == id
	case e.flags&uuidKey != 0:
		p := s.keys.str(e.kblock, e.koff, e.klen)
		n := len(p) - 16
		var u [16]byte
		return len(id) == n+uuidLen && id[:n] == p[:n] && packUUID(id, &u) && string(u[:]) == p[n:]
	}
	return s.keys.str(e.kblock, e.koff, e.klen) == id
}

// setKey copies id for entry idx: it may pin a larger request buffer for
// the whole TTL.
func (s *shard) setKey(idx int32, id string) {
	e := s.ents.at(idx)
	if !pooled(id) {
		e.flags |= longKey
		if s.long == nil {
			s.long = make(map[int32]string)
		}
		s.long[idx] = strings.Clone(id)
		return
	}
	var u [16]byte
	if packUUID(id, &u) {
		n := len(id) - uuidLen
		e.kblock, e.koff = s.keys.add(id[:n], u[:])
		e.klen = uint8(n + 16)
		e.flags |= uuidKey
		return
	}
	e.kblock, e.koff = s.keys.add(id, nil)
	e.klen = uint8(len(id))
}
