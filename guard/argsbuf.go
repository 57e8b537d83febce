package guard

import (
	"sync"

	"github.com/toolguard/toolguard/repair"
)

// A verdict's arguments_json is the size of the call's arguments, encoded
// at every call; a server drops it once the answer is on its way. So a
// front end that is done with a verdict gives its encoding back
// (Verdict.Release), and the next call encodes its arguments into that
// memory when they fit it. Front ends that keep verdicts, or never say,
// simply leave the bytes to the collector.

// maxReusedArgsJSON bounds the buffers kept for reuse: a large call's
// encoding is not held after it.
const maxReusedArgsJSON = 64 << 10

// argsBuf holds a released encoding's memory.
type argsBuf struct{ b []byte }

var argsBufs sync.Pool

// encodeReusing is repair.EncodeArgs's encoding of echo, into a released
// buffer when echo's encoding fits it, which it returns to be released in
// turn (nil: the bytes are new).
func encodeReusing(echo map[string]any) ([]byte, *argsBuf, error) {
	if echo == nil {
		return nil, nil, nil
	}
	if h, _ := argsBufs.Get().(*argsBuf); h != nil {
		if jsonAtLeast(echo, cap(h.b)) <= cap(h.b) {
			b, err := repair.AppendJSON(h.b[:0], echo)
			return b, h, err
		}
		argsBufs.Put(h)
	}
	b, err := repair.EncodeArgs(echo)
	return b, nil, err
}

// Release says that the caller is done with v: nothing v handed out
// (ArgumentsJSON, an answer sharing its bytes) will be read again, and v
// will not be used again. Its arguments' encoding may then be reused by a
// later call.
func (v *Verdict) Release() {
	b, h := v.encoded, v.encodedBuf
	v.encoded, v.encodedBuf, v.ArgumentsJSON = nil, nil, nil
	if b == nil || cap(b) > maxReusedArgsJSON {
		return
	}
	if h == nil {
		h = new(argsBuf)
	}
	h.b = b[:0]
	argsBufs.Put(h)
}
