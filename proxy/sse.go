package proxy

import (
	"bytes"
	"io"

	"go.uber.org/zap"
)

// Server-sent events, as the OpenAI and Anthropic APIs stream them: each
// event is lines ("event: ...", "data: ...", ": comment") ended by a blank
// line; a line ends with \n, \r\n or \r.

// eventEnd returns the length of the first complete event in buf, or 0.
func eventEnd(buf []byte) int {
	var fr framer
	return fr.next(buf)
}

// framer finds where events end in a stream arriving in pieces, resuming
// where it stopped: "\n\n" is searched for (vectorised) until a \r comes,
// then line ends one by one.
type framer struct {
	pos       int  // bytes of the event searched
	lineStart int  // where the line at pos starts, once cr
	cr        bool // the event holds a \r
}

// next returns the length of the complete event at the start of buf, or 0.
// Between calls buf may only grow, until next returns an event's length.
func (fr *framer) next(buf []byte) int {
	n := fr.search(buf)
	if n > 0 {
		*fr = framer{}
	}
	return n
}

func (fr *framer) search(buf []byte) int {
	if !fr.cr {
		if fr.pos == 0 && len(buf) > 0 && buf[0] == '\n' {
			return 1 // an empty line before any other
		}
		end, limit := -1, len(buf)
		from := max(0, fr.pos-1) // a "\n\n" may straddle the old end
		if k := bytes.Index(buf[from:], lfLF); k >= 0 {
			end = from + k + 2
			limit = end
		}
		c := bytes.IndexByte(buf[fr.pos:limit], '\r')
		if c < 0 {
			if end < 0 {
				fr.pos = len(buf)
				return 0
			}
			return end
		}
		fr.cr, fr.pos = true, fr.pos+c
		fr.lineStart = bytes.LastIndexByte(buf[:fr.pos], '\n') + 1
	}
	for j := fr.pos; j < len(buf); j++ {
		c := buf[j]
		if c != '\n' && c != '\r' {
			continue
		}
		end := j + 1
		if c == '\r' {
			if j+1 == len(buf) {
				fr.pos = j // the \n of a \r\n may follow
				return 0
			}
			if buf[j+1] == '\n' {
				end = j + 2
			}
		}
		if j == fr.lineStart {
			return end
		}
		fr.lineStart = end
		j = end - 1
	}
	fr.pos = len(buf)
	return 0
}

var lfLF = []byte("\n\n")

// unfinished returns the line ends that finish raw, an event the stream
// ended inside of, so that what follows is an event of its own.
func unfinished(raw []byte) string {
	switch {
	case len(raw) == 0 || eventEnd(raw) == len(raw):
		return ""
	case bytes.HasSuffix(raw, []byte("\n")):
		return "\n"
	}
	// After a lone \r, a \n would only complete its \r\n.
	return "\n\n"
}

// eventData returns the data of an event: the value of its one data line
// (a slice of raw, at raw[off:]), or its data lines joined with \n (a new
// slice, single false). ok is false when the event has no data line.
func eventData(raw []byte) (data []byte, off int, single, ok bool) {
	if bytes.IndexByte(raw, '\r') < 0 {
		// The common case: \n line ends.
		count := 0
		var joined []byte
		for at := 0; at < len(raw); {
			nl := bytes.IndexByte(raw[at:], '\n')
			end := len(raw)
			if nl >= 0 {
				end = at + nl
			}
			line := raw[at:end]
			if v, vo, isData := dataValue(line); isData {
				count++
				switch count {
				case 1:
					data, off = v, at+vo
				case 2:
					joined = append(append(append(joined, data...), '\n'), v...)
				default:
					joined = append(append(joined, '\n'), v...)
				}
			}
			at = end + 1
		}
		switch count {
		case 0:
			return nil, 0, false, false
		case 1:
			return data, off, true, true
		}
		return joined, 0, false, true
	}
	lines := splitLines(raw)
	var parts [][]byte
	for _, l := range lines {
		if v, vo, isData := dataValue(raw[l[0]:l[1]]); isData {
			parts = append(parts, v)
			off = l[0] + vo
		}
	}
	switch len(parts) {
	case 0:
		return nil, 0, false, false
	case 1:
		return parts[0], off, true, true
	}
	return bytes.Join(parts, []byte("\n")), 0, false, true
}

// dataValue returns the value of a data line and its offset in the line.
func dataValue(line []byte) ([]byte, int, bool) {
	if !bytes.HasPrefix(line, []byte("data")) {
		return nil, 0, false
	}
	switch {
	case len(line) == 4:
		return line[4:], 4, true
	case line[4] != ':':
		return nil, 0, false
	case len(line) > 5 && line[5] == ' ':
		return line[6:], 6, true
	default:
		return line[5:], 5, true
	}
}

// splitLines returns the [start, end) of each line of raw.
func splitLines(raw []byte) [][2]int {
	var out [][2]int
	start := 0
	for j := 0; j < len(raw); j++ {
		switch raw[j] {
		case '\n':
			out = append(out, [2]int{start, j})
			start = j + 1
		case '\r':
			out = append(out, [2]int{start, j})
			if j+1 < len(raw) && raw[j+1] == '\n' {
				j++
			}
			start = j + 1
		}
	}
	if start < len(raw) {
		out = append(out, [2]int{start, len(raw)})
	}
	return out
}

// rewriteData returns the event raw with its data replaced: in place when
// it has one data line, else as one data line per line where the first was.
func rewriteData(raw []byte, off int, single bool, oldLen int, data []byte) []byte {
	if single {
		out := make([]byte, 0, len(raw)-oldLen+len(data))
		out = append(out, raw[:off]...)
		out = append(out, data...)
		return append(out, raw[off+oldLen:]...)
	}
	var out []byte
	wrote := false
	for _, l := range splitLines(raw) {
		line := raw[l[0]:l[1]]
		if _, _, isData := dataValue(line); isData {
			if !wrote {
				// One data line per line of the data, as it came.
				for _, l := range bytes.Split(data, []byte("\n")) {
					out = append(append(append(out, "data: "...), l...), '\n')
				}
				wrote = true
			}
			continue
		}
		if len(line) == 0 {
			continue // the blank line that ends the event, added below
		}
		out = append(append(out, line...), '\n')
	}
	return append(out, '\n')
}

// eventProcessor follows the events of one response.
type eventProcessor interface {
	// frame returns the length of the event at the start of buf when it
	// recognises the event cheaply (the same bytes around a fragment as
	// the last one), 0 when the framer must find its end.
	frame(buf []byte) int
	// event handles one complete event, or at the end the bytes after the
	// last one; raw is valid only during the call.
	event(raw []byte)
	end(cut bool) // the upstream's body ended; cut: with an error
	// stopped: a call was refused, the rest of the stream is dropped.
	stopped() bool
	drain() // appends a bounded part of what may go out to the output
	close()
}

// sseReader is the body the client reads: the upstream's stream through an
// eventProcessor. Each Read returns what one read of the upstream released,
// so the reverse proxy flushes every event as soon as it may go.
//
// An event is read whole before it is handled, so one that grows past
// maxEvent, or past what the budget of all requests has room for, ends
// the reading: the calls held go as they came (counted too large), and
// everything from that event on passes through as it comes, unparsed.
type sseReader struct {
	src    io.ReadCloser
	proc   eventProcessor
	fixer  *fixer  // the processor's fixer, whose calls an unreadable event lets go
	out    *[]byte // the processor's output; sent from outPos
	outPos int
	in     []byte // input not yet split into events
	framer framer // finds the end of the event at the start of in
	err    error  // how the upstream's body ended, once it has
	closed bool
	// maxEvent bounds the event being read; hold counts in's capacity
	// beyond one read's.
	maxEvent int
	hold     hold
	rest     bool // an event was too large: the rest passes unparsed
	// bulk: a read filled the room it was given, so the upstream writes
	// faster than the stream is followed: reads are then bulkReadSize.
	bulk bool
}

const sseReadSize = 32 << 10

// bulkReadSize is the reads' size once the upstream is ahead (bulk), as
// the budget allows: a megabyte call written all at once took 640 reads
// of 32 KiB, whose system calls cost about a tenth of the proxy's CPU on
// that stream. The buffer beyond sseReadSize is counted in hold.
const bulkReadSize = 128 << 10

// minReadRoom: a read goes into the room left after an event cut by the
// last read's end when there is this much. Asking for a whole read's room
// there grew in to two reads' size, and shrank it back once the event went:
// 96 KiB allocated and cleared for each event that two reads cut, which
// an upstream sending small reads made most of them.
const minReadRoom = 4 << 10

// newSSEReader follows a streamed answer: the rescue (when on and rescue
// is asked for), then the fixer of the request's API.
func (p *Proxy) newSSEReader(rs *request, src io.ReadCloser, rescue bool) *sseReader {
	out := new([]byte)
	f := newFixer(p, rs, out)
	return &sseReader{src: src, proc: p.streamProcessor(rs, f, rescue), fixer: f, out: out,
		maxEvent: p.maxEventBytes(), hold: hold{b: p.budget}}
}

// maxEventBytes is the largest event read: twice the call limit, as a
// call may come whole in one event, escaped (at least 64 KiB).
func (p *Proxy) maxEventBytes() int { return max(2*p.cfg.MaxCallBytes, 64<<10) }

func (r *sseReader) Read(p []byte) (int, error) {
	if r.rest {
		return r.readRest(p)
	}
	for r.outPos == len(*r.out) {
		if r.proc.drain(); len(*r.out) > 0 {
			break
		}
		if r.err != nil {
			return 0, r.err
		}
		if !r.room() {
			r.passRest()
			return r.readRest(p)
		}
		room := cap(r.in) - len(r.in)
		n, err := r.src.Read(r.in[len(r.in):cap(r.in)])
		r.bulk = r.bulk || n == room && room >= sseReadSize/2
		r.in = r.in[:len(r.in)+n]
		r.split()
		if err == nil && r.proc.stopped() {
			err = io.EOF
			_ = r.src.Close() // the upstream's request ends here
		}
		if err != nil {
			if len(r.in) > 0 && !r.proc.stopped() {
				r.proc.event(r.in) // an event without its blank line
			}
			r.in = r.in[:0]
			r.proc.end(err != io.EOF)
			r.err = err
		}
	}
	return r.send(p), nil
}

// send copies out what the processor released.
func (r *sseReader) send(p []byte) int {
	n := copy(p, (*r.out)[r.outPos:])
	r.outPos += n
	if r.outPos == len(*r.out) {
		*r.out = (*r.out)[:0]
		r.outPos = 0
	}
	return n
}

// room makes space for a read into in, false when the event arriving may
// not grow: past maxEvent, or beyond the budget.
func (r *sseReader) room() bool {
	readSize := sseReadSize
	if r.bulk {
		readSize = bulkReadSize
	}
	if len(r.in) == 0 && cap(r.in) > readSize {
		r.in = nil // a large event went: back to one read's buffer
		r.hold.free()
	}
	if r.bulk && cap(r.in) < bulkReadSize && r.hold.set(bulkReadSize-sseReadSize) {
		grown := make([]byte, len(r.in), bulkReadSize)
		copy(grown, r.in)
		r.in = grown
	}
	if cap(r.in)-len(r.in) >= minReadRoom {
		return true
	}
	if len(r.in) >= r.maxEvent {
		return false
	}
	size := max(len(r.in)+sseReadSize, min(2*cap(r.in), r.maxEvent+sseReadSize))
	if !r.hold.set(int64(size - sseReadSize)) {
		return false
	}
	grown := make([]byte, len(r.in), size)
	copy(grown, r.in)
	r.in = grown
	return true
}

// passRest gives up reading the stream at an event that cannot be held:
// the calls held go as they came, the rescue's text too, and nothing
// after is concluded.
func (r *sseReader) passRest() {
	rs := r.fixer.rs
	reason := "larger than an event may be"
	if len(r.in) < r.maxEvent {
		reason = "the bodies and calls held are at the budget"
	}
	rs.log.Warn("stream passed through unparsed from an event on: "+reason, zap.Int("event_bytes_read", len(r.in)),
		zap.Int("max_event_bytes", r.maxEvent), zap.Int64("max_held_bytes", r.fixer.p.cfg.MaxHeldBytes))
	r.fixer.letGoOpen(nil, tooLargeEvent)
	r.proc.end(true)
	r.rest = true
}

// readRest sends what the processor still holds, then the event that was
// arriving, then the upstream's stream as it comes.
func (r *sseReader) readRest(p []byte) (int, error) {
	if r.outPos == len(*r.out) {
		r.proc.drain()
	}
	if r.outPos < len(*r.out) {
		return r.send(p), nil
	}
	if len(r.in) > 0 {
		n := copy(p, r.in)
		if r.in = r.in[n:]; len(r.in) == 0 {
			r.in = nil
			r.hold.free()
		}
		return n, nil
	}
	return r.src.Read(p)
}

// split hands every complete event in r.in to the processor.
func (r *sseReader) split() {
	at := 0
	for !r.proc.stopped() {
		n := r.proc.frame(r.in[at:])
		if n > 0 {
			r.framer = framer{}
		} else if n = r.framer.next(r.in[at:]); n == 0 {
			break
		}
		r.proc.event(r.in[at : at+n])
		at += n
	}
	if at > 0 {
		r.in = r.in[:copy(r.in, r.in[at:])]
	}
}

func (r *sseReader) Close() error {
	if !r.closed {
		r.closed = true
		r.proc.close()
		r.hold.free()
	}
	return r.src.Close()
}
