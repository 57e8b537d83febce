package proxy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"

	"go.uber.org/zap"

	"github.com/toolguard/toolguard/internal/budget"
)

// The bounds of all requests together: how many run at once
// (MaxConcurrentRequests) and the bytes they hold (MaxHeldBytes): request
// bodies read whole, non-streamed answers read to repair, and in streams
// the events held behind open calls, the calls' arguments and an event
// still arriving. Each request's own bounds (MaxRequestBytes,
// MaxResponseBytes, MaxCallBytes) stay as they were.

// hold is what one holder (a request's body, a stream's buffers) has
// drawn from the budget. It is used by one goroutine at a time.
type hold struct {
	b *budget.Bytes
	n int64
}

// set makes the holding n bytes: less always, more only when the budget
// has them (false otherwise, and the holding stays as it was).
func (h *hold) set(n int64) bool {
	switch d := n - h.n; {
	case d == 0:
		return true
	case d < 0:
		h.b.Release64(-d)
	case !h.b.Grow64(d):
		return false
	}
	h.n = n
	return true
}

func (h *hold) free() { h.set(0) }

var (
	errOverLimit  = errors.New("over the size limit")
	errOverBudget = errors.New("over the held-bytes budget")
)

// readHeld reads src whole, at most limit bytes, into a buffer whose
// capacity h holds. size is the length announced (-1: unknown), which
// net/http's bodies keep to. On errOverLimit or errOverBudget, rest gives
// every byte of src, those read included.
func readHeld(src io.Reader, size, limit int64, h *hold) (buf []byte, rest io.Reader, err error) {
	if size > limit {
		return nil, src, errOverLimit
	}
	initial := min(64<<10, limit)
	if size >= 0 {
		initial = size
	}
	if !h.set(initial) {
		return nil, src, errOverBudget
	}
	buf = make([]byte, 0, initial)
	for {
		if len(buf) == cap(buf) {
			if n := int64(len(buf)); n == size || n == limit {
				// Full: the body ends here or is over the limit.
				var one [1]byte
				k, err := io.ReadFull(src, one[:])
				switch {
				case err == io.EOF:
					return buf, nil, nil
				case err != nil:
					return buf, nil, err
				case n == size:
					return buf, nil, errors.New("body longer than its announced length")
				}
				return buf, io.MultiReader(bytes.NewReader(buf), bytes.NewReader(one[:k]), src), errOverLimit
			}
			next := min(2*int64(cap(buf)), limit)
			if !h.set(next) {
				return buf, io.MultiReader(bytes.NewReader(buf), src), errOverBudget
			}
			grown := make([]byte, len(buf), next)
			copy(grown, buf)
			buf = grown
		}
		n, err := src.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			if size >= 0 && int64(len(buf)) < size {
				return buf, nil, io.ErrUnexpectedEOF
			}
			return buf, nil, nil
		}
		if err != nil {
			return buf, nil, err
		}
	}
}

// enter takes a place among the requests running, false when all are taken.
func (p *Proxy) enter() bool {
	if p.running.Add(1) > int64(p.cfg.MaxConcurrentRequests) {
		p.running.Add(-1)
		return false
	}
	return true
}

func (p *Proxy) leave() { p.running.Add(-1) }

// overloaded refuses a request the proxy has no room for: 503 with
// Retry-After, in the API's error shape (Anthropic's overloaded_error;
// OpenAI's clients retry a 503 whatever its type).
func (p *Proxy) overloaded(w http.ResponseWriter, a api, message string) {
	errType := "server_error"
	if a == apiAnthropic {
		errType = "overloaded_error"
	}
	w.Header().Set("Retry-After", "1")
	p.refuse(w, a, http.StatusServiceUnavailable, errType, message)
}

// readRequestBody reads a generation request's body within
// MaxRequestBytes and the budget, or answers the refusal (ok false).
func (p *Proxy) readRequestBody(w http.ResponseWriter, r *http.Request, a api, h *hold) (body []byte, ok bool) {
	body, _, err := readHeld(r.Body, r.ContentLength, p.cfg.MaxRequestBytes, h)
	switch {
	case err == nil:
		return body, true
	case errors.Is(err, errOverLimit):
		p.refuse(w, a, http.StatusRequestEntityTooLarge, "request_too_large",
			fmt.Sprintf("request body over %d bytes (toolguard proxy --max-request-bytes)", p.cfg.MaxRequestBytes))
	case errors.Is(err, errOverBudget):
		p.log.Warn("request refused: the bodies and calls held are at the budget", zap.String("path", r.URL.Path),
			zap.Int64("content_length", r.ContentLength), zap.Int64("max_held_bytes", p.cfg.MaxHeldBytes))
		p.overloaded(w, a, fmt.Sprintf("toolguard proxy is holding its maximum of %d bytes of requests and answers (--max-held-bytes); retry shortly", p.cfg.MaxHeldBytes))
	default:
		p.refuse(w, a, http.StatusBadRequest, "invalid_request_error", "the request body could not be read")
	}
	return nil, false
}

// heldBody is an answer whose bytes are counted until it is closed.
type heldBody struct {
	io.Reader
	io.Closer
	h *hold
}

func (b *heldBody) Close() error {
	b.h.free()
	return b.Closer.Close()
}
