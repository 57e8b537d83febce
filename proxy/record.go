package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"go.uber.org/zap"

	"github.com/toolguard/toolguard/internal/budget"
)

// Recording (Config.Record) appends each exchange the proxy judges to a
// JSON-lines file in toolguard eval's input format, so the traffic of an
// observing proxy can be measured offline. What is recorded is what the
// upstream sent, before any repair: eval judges the model's calls, not
// the proxy's. Recording never changes an answer; a record that cannot be
// kept (too large, the recording's memory budget spent, a write error) is
// skipped
// and logged.

// alwaysRedacted are the request headers that carry API keys and
// credentials: recorded as redacted whatever the configuration says.
var alwaysRedacted = []string{"Authorization", "Proxy-Authorization", "X-Api-Key", "Api-Key", "Cookie", "X-Goog-Api-Key"}

// keyParams are query parameters that carry keys (never recorded: the
// query is not; their values are scrubbed from the bodies as well).
var keyParams = []string{"key", "api_key", "api-key", "apikey", "access_token", "token"}

// redacted replaces a secret in a record.
const redacted = "[redacted]"

// record is one line of the file: eval reads api, request and response;
// the rest says where it came from.
type record struct {
	recordHead
	Request  json.RawMessage `json:"request"`
	Response json.RawMessage `json:"response"`
}

// recordHead is a record but for the bodies, which are appended to it as
// they are (compacted, or the stream escaped): encoding them through
// encoding/json would copy and scan them again.
type recordHead struct {
	API     string            `json:"api"`
	Time    string            `json:"time"`
	Path    string            `json:"path"`
	Status  int               `json:"status"`
	Session string            `json:"session,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// exchange is what a recorded request keeps until its answer is read.
type exchange struct {
	path    string
	time    time.Time
	headers map[string]string
	secrets []string
	body    []byte
}

// recordFile appends records to a file and rotates it: past maxBytes the
// file becomes FILE.1 (FILE.1 becomes FILE.2, ...; past keep, the oldest
// is removed) and a new FILE is started.
type recordFile struct {
	path     string
	maxBytes int64
	keep     int
	redact   map[string]bool // canonical header names
	log      *zap.Logger
	budget   *budget.Bytes // the copies being recorded (MaxHeldBytes)

	mu   sync.Mutex
	f    *os.File
	size int64
}

// newRecordFile opens (or creates, 0600: it holds prompts) the record file
// for appending.
func newRecordFile(cfg Config, log *zap.Logger) (*recordFile, error) {
	r := &recordFile{path: cfg.Record, maxBytes: cfg.RecordMaxBytes, keep: cfg.RecordFiles, redact: map[string]bool{}, log: log,
		budget: budget.New(cfg.MaxHeldBytes)}
	for _, h := range append(slices.Clone(alwaysRedacted), cfg.RecordRedactHeaders...) {
		r.redact[http.CanonicalHeaderKey(strings.TrimSpace(h))] = true
	}
	if err := r.open(); err != nil {
		return nil, fmt.Errorf("record file: %w", err)
	}
	return r, nil
}

func (r *recordFile) open() error {
	f, err := os.OpenFile(r.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return err
	}
	r.f, r.size = f, fi.Size()
	return nil
}

// Close closes the file.
func (r *recordFile) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}

// begin takes what a record needs from the request: its path (not the
// query, which may hold a key), its headers with credentials redacted, and
// its body, kept by the caller until the answer is read.
func (r *recordFile) begin(req *http.Request, body []byte) *exchange {
	x := &exchange{path: req.URL.Path, time: time.Now().UTC(), headers: map[string]string{}, body: body}
	for name, vals := range req.Header {
		if r.redact[name] {
			x.headers[name] = redacted
			for _, v := range vals {
				x.secrets = append(x.secrets, v)
				if _, tok, ok := strings.Cut(v, " "); ok {
					x.secrets = append(x.secrets, strings.TrimSpace(tok)) // Bearer KEY
				}
			}
			continue
		}
		x.headers[name] = strings.Join(vals, ", ")
	}
	q := req.URL.Query()
	for _, k := range keyParams {
		x.secrets = append(x.secrets, q[k]...)
	}
	return x
}

// line builds the record of an exchange whose answer is resp (a JSON body
// or an SSE transcript), or an error when it cannot be one.
func (x *exchange) line(rs *request, status int, resp []byte, streamed bool) ([]byte, error) {
	head, err := marshal(recordHead{API: rs.api.String(), Time: x.time.Format(time.RFC3339Nano), Path: x.path,
		Status: status, Session: rs.session, Headers: x.headers})
	if err != nil {
		return nil, err
	}
	size := len(head) + len(x.body) + len(resp) + 32
	if streamed {
		size += escapedLen(resp) - len(resp)
	}
	b := bytes.NewBuffer(make([]byte, 0, size))
	b.Write(head[:len(head)-1]) // without its closing brace
	b.WriteString(`,"request":`)
	if err := json.Compact(b, x.body); err != nil {
		return nil, fmt.Errorf("request body: %w", err)
	}
	b.WriteString(`,"response":`)
	if streamed {
		b.Write(appendJSONString(b.AvailableBuffer(), resp))
	} else if err := json.Compact(b, resp); err != nil {
		return nil, fmt.Errorf("answer body: %w", err)
	}
	b.WriteString("}\n")
	return scrub(b.Bytes(), x.secrets), nil
}

// marshal encodes v without HTML escapes, so a record keeps the bytes it
// was sent (`->`, not `-\u003e`), with no newline.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// appendJSONString appends s as a JSON string: quotes, backslashes and
// control characters escaped, each byte of invalid UTF-8 as U+FFFD (as
// encoding/json does), everything else as it is. Runs of plain bytes are
// copied at once: a stream is mostly plain.
func appendJSONString(dst, s []byte) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		for i < len(s) && plain[s[i]] {
			i++
		}
		if i == len(s) {
			break
		}
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRune(s[i:])
			if r != utf8.RuneError || n != 1 {
				i += n
				continue
			}
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			if c < 0x20 {
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			} else {
				dst = append(dst, "\\ufffd"...)
			}
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

const hexDigits = "0123456789abcdef"

// plain marks the bytes a JSON string holds as they are: printable ASCII
// but the quote and the backslash.
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// escapedLen is the length appendJSONString gives s, quotes included: the
// line is allocated once, at its size.
func escapedLen(s []byte) int {
	n := len(s) + 2
	for i := 0; i < len(s); {
		for i < len(s) && plain[s[i]] {
			i++
		}
		if i == len(s) {
			break
		}
		c := s[i]
		switch {
		case c >= utf8.RuneSelf:
			r, w := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && w == 1 {
				n += len("\\ufffd") - 1
			}
			i += w
			continue
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
			n++
		case c < 0x20:
			n += 5
		}
		i++
	}
	return n
}

// scrub replaces every secret seen in a redacted header or a key parameter
// wherever it appears in the record (a key pasted into a prompt). Only
// secrets that JSON writes as they are, and long enough not to be a common
// word, are looked for.
func scrub(line []byte, secrets []string) []byte {
	for _, s := range secrets {
		if len(s) < 8 || strings.ContainsFunc(s, func(c rune) bool {
			return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_.~+/=:", c))
		}) {
			continue
		}
		if bytes.Contains(line, []byte(s)) {
			line = bytes.ReplaceAll(line, []byte(s), []byte(redacted))
		}
	}
	return line
}

// write appends one record, rotating first when it would take the file
// past maxBytes. A record larger than maxBytes is not written.
func (r *recordFile) write(line []byte) error {
	if int64(len(line)) > r.maxBytes {
		return fmt.Errorf("the record is %d bytes, more than --record-max-bytes (%d)", len(line), r.maxBytes)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return errors.New("the record file is closed")
	}
	if r.size > 0 && r.size+int64(len(line)) > r.maxBytes {
		if err := r.rotate(); err != nil {
			return fmt.Errorf("rotate: %w", err)
		}
	}
	n, err := r.f.Write(line)
	r.size += int64(n)
	return err
}

// rotate shifts FILE.i to FILE.i+1 (removing what falls past keep), moves
// FILE to FILE.1 and opens a new FILE. With keep 0 the old FILE is removed.
func (r *recordFile) rotate() error {
	if err := r.f.Close(); err != nil {
		return err
	}
	r.f = nil
	name := func(i int) string { return fmt.Sprintf("%s.%d", r.path, i) }
	var err error
	if r.keep == 0 {
		err = os.Remove(r.path)
	} else {
		if err = os.Remove(name(r.keep)); errors.Is(err, os.ErrNotExist) {
			err = nil
		}
		for i := r.keep - 1; i >= 1 && err == nil; i-- {
			if err = os.Rename(name(i), name(i+1)); errors.Is(err, os.ErrNotExist) {
				err = nil
			}
		}
		if err == nil {
			err = os.Rename(r.path, name(1))
		}
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		// Keep appending to the file as it is rather than lose records.
		if oerr := r.open(); oerr != nil {
			return errors.Join(err, oerr)
		}
		return err
	}
	return r.open()
}

// recordExchange writes rs's exchange with the upstream's answer resp.
func (p *Proxy) recordExchange(rs *request, status int, resp []byte, streamed bool) {
	x := rs.rec
	if x == nil || p.rec == nil {
		return
	}
	rs.rec = nil
	// Building the line copies both bodies (a stream's escaped, up to twice
	// its size): that memory is held against the recording's budget while
	// it lasts.
	est := 2 * int64(len(x.body)+len(resp))
	if est > 2*p.cfg.RecordMaxBytes {
		rs.log.Warn("exchange not recorded: larger than --record-max-bytes", zap.Int64("record_max_bytes", p.cfg.RecordMaxBytes))
		return
	}
	h := hold{b: p.rec.budget}
	defer h.free()
	if !h.set(est) {
		rs.log.Warn("exchange not recorded: the copies being recorded are at their budget", zap.Int64("max_held_bytes", p.cfg.MaxHeldBytes))
		return
	}
	line, err := x.line(rs, status, resp, streamed)
	if err == nil {
		err = p.rec.write(line)
	}
	if err != nil {
		rs.log.Warn("exchange not recorded", zap.Error(err))
		return
	}
	rs.log.Debug("exchange recorded", zap.Int("bytes", len(line)))
}

// recordingBody passes a streamed answer through as it is read and keeps a
// copy, held against the recording's budget and at most MaxResponseBytes;
// at the end of the stream the copy is recorded. A stream that breaks off,
// or outgrows the copy's bounds, is not recorded.
type recordingBody struct {
	io.ReadCloser
	p      *Proxy
	rs     *request
	status int
	buf    []byte
	h      hold
	given  bool // gave up the copy
}

func (p *Proxy) newRecordingBody(rs *request, status int, src io.ReadCloser) io.ReadCloser {
	if rs.rec == nil || p.rec == nil {
		return src
	}
	return &recordingBody{ReadCloser: src, p: p, rs: rs, status: status, h: hold{b: p.rec.budget}}
}

func (b *recordingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if !b.given && n > 0 {
		b.keep(p[:n])
	}
	if err == io.EOF && !b.given {
		b.p.recordExchange(b.rs, b.status, b.buf, true)
		b.drop()
	}
	return n, err
}

// keep adds read bytes to the copy, or gives the copy up.
func (b *recordingBody) keep(p []byte) {
	size := int64(len(b.buf) + len(p))
	switch {
	case size > b.p.cfg.MaxResponseBytes:
		b.rs.log.Warn("exchange not recorded: the stream is larger than the response limit", zap.Int64("max_response_bytes", b.p.cfg.MaxResponseBytes))
	case size > int64(cap(b.buf)) && !b.h.set(min(max(size, 2*int64(cap(b.buf)), 64<<10), b.p.cfg.MaxResponseBytes)):
		b.rs.log.Warn("exchange not recorded: the copies being recorded are at their budget", zap.Int64("max_held_bytes", b.p.cfg.MaxHeldBytes))
	default:
		if size > int64(cap(b.buf)) {
			nb := make([]byte, len(b.buf), b.h.n)
			copy(nb, b.buf)
			b.buf = nb
		}
		b.buf = append(b.buf, p...)
		return
	}
	b.drop()
}

func (b *recordingBody) drop() {
	b.given, b.buf = true, nil
	b.h.free()
	b.rs.rec = nil
}

func (b *recordingBody) Close() error {
	if !b.given {
		b.drop()
	}
	return b.ReadCloser.Close()
}
