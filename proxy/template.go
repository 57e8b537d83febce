package proxy

import "bytes"

// template is the data around the fragment of the last event that carried
// one argument fragment and nothing else. Servers send the same bytes around
// every fragment of a call: an event that matches needs no parsing.
type template struct {
	valid          bool
	prefix, suffix []byte
	key            callKey
	// framed: head and tail, the event's bytes before and after the
	// fragment's text, frame an event whose only other bytes are a
	// fragment (the template event has no \r and ends at its first blank
	// line). off is where its data starts, rest its bytes after the data.
	framed     bool
	head, tail []byte
	off, rest  int
}

// set makes the template of the event raw, whose one data line is
// raw[off:off+n], around the fragment at s in that data.
func (t *template) set(raw []byte, off, n int, s span, key callKey) {
	data := raw[off : off+n]
	t.prefix = append(t.prefix[:0], data[:s.start+1]...)
	t.suffix = append(t.suffix[:0], data[s.end-1:]...)
	t.key, t.valid = key, true
	t.framed = bytes.IndexByte(raw, '\r') < 0 && eventEnd(raw) == len(raw)
	t.head = append(t.head[:0], raw[:off+s.start+1]...)
	t.tail = append(t.tail[:0], raw[off+s.end-1:]...)
	t.off, t.rest = off, len(raw)-off-n
}

// match returns the fragment's span when data is the template around a string.
func (t *template) match(data []byte, single bool) (span, bool) {
	if !t.valid || !single || len(data) < len(t.prefix)+len(t.suffix) ||
		!bytes.HasPrefix(data, t.prefix) || !bytes.HasSuffix(data, t.suffix) {
		return span{}, false
	}
	body := data[len(t.prefix) : len(data)-len(t.suffix)]
	// Only escaped quotes inside, and the closing quote not escaped.
	for i := 0; ; {
		k := bytes.IndexByte(body[i:], '"')
		if k < 0 {
			break
		}
		if backslashesBefore(body, i+k)%2 == 0 {
			return span{}, false
		}
		i += k + 1
	}
	if backslashesBefore(body, len(body))%2 == 1 {
		return span{}, false
	}
	return span{len(t.prefix) - 1, len(data) - len(t.suffix) + 1}, true
}

// frame returns the length of the event at the start of buf when it is
// the template around a fragment, and the fragment's span in its data;
// 0 when it is not, or not whole yet. It finds what the framer, eventData
// and match would, reading the event once: its head and tail compared,
// the fragment's bytes scanned to the closing quote.
func (t *template) frame(buf []byte) (int, span) {
	if !t.valid || !t.framed || !bytes.HasPrefix(buf, t.head) {
		return 0, span{}
	}
	body := buf[len(t.head):]
	// The fragment ends at its first unescaped quote; without a line end
	// in it, the event's lines and its end are the template's. The
	// vectorised byte search finds both, not a loop over each byte, and
	// only over the fragment: searching the event for its line end first
	// read its tail too, three times the bytes.
	q := 0
	for {
		k := bytes.IndexByte(body[q:], '"')
		if k < 0 {
			return 0, span{}
		}
		if q += k; backslashesBefore(body, q)%2 == 0 {
			break
		}
		q++
	}
	if frag := body[:q]; bytes.IndexByte(frag, '\n') >= 0 || bytes.IndexByte(frag, '\r') >= 0 ||
		!bytes.HasPrefix(body[q:], t.tail) {
		return 0, span{}
	}
	start := len(t.head) - t.off - 1
	return len(t.head) + q + len(t.tail), span{start, start + q + 2}
}

func backslashesBefore(b []byte, i int) int {
	n := 0
	for i > 0 && b[i-1] == '\\' {
		n++
		i--
	}
	return n
}

// frameHint is an event frame recognised as the template's: the event at
// at, n bytes long, its fragment at s in its data. run: n spans a run of
// such events, whose ends are in the fixer's runEnds.
type frameHint struct {
	at  *byte
	n   int
	s   span
	run bool
}

// maxRun bounds the events of a run, so that the checks after each
// (complete, too large, the budget) stay a bounded way behind.
const maxRun = 4096

// frame returns the length of the event at the start of buf when it is
// the template around a fragment, and remembers it for event; 0 when the
// framer must find the event's end. When the template's call is held and
// no processor before the fixer reads each event, the events after it
// that match the template too are taken with it, as a run that event
// queues once (see runEvent).
func (f *fixer) frame(buf []byte) int {
	n, s := f.tmpl.frame(buf)
	if n == 0 {
		return 0
	}
	f.hint = frameHint{at: &buf[0], n: n, s: s}
	if !f.runs || f.halt {
		return n
	}
	if c := f.call(f.tmpl.key); c == nil || c.state != stateHeld {
		return n
	}
	f.runEnds = append(f.runEnds[:0], int32(n))
	for len(f.runEnds) < maxRun {
		m, _ := f.tmpl.frame(buf[n:])
		if m == 0 {
			break
		}
		n += m
		f.runEnds = append(f.runEnds, int32(n))
	}
	f.hint.n, f.hint.run = n, true
	return n
}

// runEvent handles a run of events that frame found to be the template
// around a fragment of the held call c, as the events one by one would
// be, with one queue entry, one copy and one fragment record for the
// events up to the first after which the call is complete, too large or
// past what may be held; the rest go one by one.
func (f *fixer) runEvent(raw []byte, c *streamCall, d dialect) {
	head, tail := len(f.tmpl.head), len(f.tmpl.tail)
	limit, maxQueued := f.p.cfg.MaxCallBytes, 8*f.p.cfg.MaxCallBytes
	from, k := 0, 0
	for k < len(f.runEnds) {
		end := int(f.runEnds[k])
		f.appendArgs(c, raw[from+head-1:end-tail+1])
		from, k = end, k+1
		if len(c.args) > limit || c.scan.Scan(c.args) ||
			f.queued()+from > maxQueued || !f.hold.set(int64(f.queued()+from+f.argsHeld)) {
			break
		}
	}
	ev := f.queue.push(pending{ref: f.arena.add(raw[:from]), run: true})
	f.fragment(c, fragment{ev: ev, args: span{head, tail}, run: int32(k)})
	f.advance(c)
	f.drain()
	for ; k < len(f.runEnds); k++ {
		end := int(f.runEnds[k])
		ev := raw[from:end]
		f.hint = frameHint{at: &ev[0], n: len(ev), s: span{head - 1 - f.tmpl.off, len(ev) - tail + 1 - f.tmpl.off}}
		f.event(ev, d)
		from = end
	}
}
