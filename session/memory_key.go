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
	j := 0
	for i := 0; i < uuidLen; {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if s[i] != '-' {
				return false
			}
			i++
			continue
		}
		hi, lo := lowerHex(s[i]), lowerHex(s[i+1])
		if hi > 15 || lo > 15 {
			return false
		}
		u[j] = hi<<4 | lo
		j++
		i += 2
	}
	return true
}

// lowerHex returns the value of a lowercase hex digit, or 16.
func lowerHex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return 16
}

// unpackUUID writes the canonical form of the UUID u to dst[:uuidLen].
func unpackUUID(dst []byte, u []byte) {
	const digits = "0123456789abcdef"
	_ = dst[uuidLen-1]
	j := 0
	for i := 0; i < uuidLen; {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			dst[i] = '-'
			i++
			continue
		}
		dst[i], dst[i+1] = digits[u[j]>>4], digits[u[j]&15]
		j++
		i += 2
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
