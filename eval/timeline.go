package eval

import (
	"encoding/json"
	"fmt"
	"math"
	"time"
)

// timelineBuckets bounds the timeline: past it, neighbouring buckets are
// merged and each holds twice the calls, so its size does not grow with
// the recording while its counts stay exact.
const timelineBuckets = 64

// maxSessions bounds the sessions whose consecutive mistakes are followed;
// past it, the others share one counter.
const maxSessions = 4096

// Timeline is the calls in the recording's order, in buckets of Width
// calls (the last one partly filled): the mistakes each session would
// have counted, as the guard counts them in enforce mode. A refused or
// truncated call is a mistake and adds one to its session's consecutive
// count; a usable or repaired call resets it. A session is a line's
// "session", or else its model.
type Timeline struct {
	Width   int      `json:"width"`
	Buckets []Bucket `json:"buckets"`
	// Limit is the mistake limit the counts assume (the guard's default).
	Limit       int            `json:"mistake_limit"`
	consecutive map[string]int // by session
	calls       int
}

// Bucket is one stretch of the recording.
type Bucket struct {
	Calls    int `json:"calls"`
	Mistakes int `json:"mistakes"`
	// LimitReached counts the mistakes made at or past the limit: the
	// calls whose verdict says the session's limit is reached.
	LimitReached int `json:"limit_reached"`
}

func (t *Timeline) add(session, class string, limit int) {
	if t.consecutive == nil {
		t.consecutive, t.Width, t.Limit = map[string]int{}, 1, limit
	}
	if t.calls/t.Width >= timelineBuckets {
		t.merge()
	}
	i := t.calls / t.Width
	if i == len(t.Buckets) {
		t.Buckets = append(t.Buckets, Bucket{})
	}
	t.calls++
	b := &t.Buckets[i]
	b.Calls++
	session = boundedKeyN(t.consecutive, session, maxSessions)
	switch class {
	case ClassRefused, ClassTruncated:
		t.consecutive[session]++
		b.Mistakes++
		if t.consecutive[session] >= limit {
			b.LimitReached++
		}
	case ClassUsable, ClassRepaired:
		t.consecutive[session] = 0
	}
}

// merge halves the buckets, each holding twice the calls.
func (t *Timeline) merge() {
	half := make([]Bucket, 0, timelineBuckets)
	for i := 0; i < len(t.Buckets); i += 2 {
		b := t.Buckets[i]
		if i+1 < len(t.Buckets) {
			n := t.Buckets[i+1]
			b.Calls, b.Mistakes, b.LimitReached = b.Calls+n.Calls, b.Mistakes+n.Mistakes, b.LimitReached+n.LimitReached
		}
		half = append(half, b)
	}
	t.Buckets, t.Width = half, 2*t.Width
}

// noteTime widens the recording's time range by a line's "time": RFC 3339
// text or Unix seconds; none (absent or null) leaves it.
func (s *Summary) noteTime(raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var at time.Time
	var text string
	var secs float64
	switch {
	case json.Unmarshal(raw, &text) == nil:
		t, err := time.Parse(time.RFC3339Nano, text)
		if err != nil {
			return fmt.Errorf(`"time": %w`, err)
		}
		at = t.UTC()
	case json.Unmarshal(raw, &secs) == nil && !math.IsInf(secs, 0) && math.Abs(secs) < 1e11:
		whole, frac := math.Modf(secs)
		at = time.Unix(int64(whole), int64(frac*1e9)).UTC()
	default:
		return fmt.Errorf(`"time" is %s: want RFC 3339 text or Unix seconds`, truncate(string(raw), 40))
	}
	if s.First == nil || at.Before(*s.First) {
		s.First = &at
	}
	if s.Last == nil || at.After(*s.Last) {
		last := at
		s.Last = &last
	}
	return nil
}
