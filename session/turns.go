package session

import "time"

// Bounds of a session's open turns: the validations that await their
// execution. A model turn of parallel tool calls validates each call, then
// executes each; every validation opens a turn of its own.
const (
	// MaxOpenTurns bounds one session's open turns, the oldest dropped
	// first (its execution then counts as a call of its own).
	MaxOpenTurns = 32
	// OpenTurnTTL drops an open turn whose execution never came.
	OpenTurnTTL = 10 * time.Minute
)

// openTurn is a validation awaiting its execution: its call key and
// fingerprint (sameCall), the mistakes before it, whether it was a mistake,
// and when it was opened (the store's clock).
type openTurn struct {
	call, fingerprint uint64
	base              uint32
	failed            bool
	at                int64
}

// nextTurns applies one outcome to a session's counters and open turns and
// reports whether it continued an open turn (the Redis script is the same
// rule in Lua). consecutive always holds the count, open turns included:
//   - an execution of an open turn's call closes that turn and counts
//     nothing more when the validation was a mistake; a usable validation
//     that fails at execution counts one after the mistakes before it; a
//     usable execution resets the count (unless repeating);
//   - any other call counts as its own turn, and a validation opens a turn
//     without closing the others (parallel calls, a read in between).
func nextTurns(c counters, turns []openTurn, o Outcome, limit uint32, now, ttl int64) (counters, []openTurn, bool) {
	turns = liveTurns(turns, now, ttl)
	call := callKey(o.CallID)
	if o.Execution {
		for i, t := range turns {
			if !sameCall(o, call, t.call, t.fingerprint) {
				continue
			}
			turns = append(turns[:i:i], turns[i+1:]...)
			n := c
			switch {
			case o.Usable && c.repeats < limit:
				n.consecutive = 0
			case !t.failed:
				n.consecutive = satInc(max(c.consecutive, t.base))
			}
			return n, turns, true
		}
	}
	n := counters{fingerprint: o.Fingerprint, repeats: 1}
	if o.Fingerprint != 0 && o.Fingerprint == c.fingerprint {
		n.repeats = satInc(c.repeats)
	}
	failed := !o.Usable || n.repeats >= limit
	if failed {
		n.consecutive = satInc(c.consecutive)
	}
	if !o.Execution {
		if len(turns) >= MaxOpenTurns {
			// Shifted down in place, not resliced: a session that only
			// validates reaches the bound and stays there, and reslicing
			// gave up a slot of the array at every call, a new one every
			// few dozen. The store holds the only reference, under its lock.
			turns = append(turns[:0], turns[len(turns)-MaxOpenTurns+1:]...)
		}
		turns = append(turns, openTurn{call: call, fingerprint: o.Fingerprint, base: c.consecutive, failed: failed, at: now})
	}
	return n, turns, false
}

// liveTurns drops the turns older than ttl.
func liveTurns(turns []openTurn, now, ttl int64) []openTurn {
	i := 0
	for i < len(turns) && now-turns[i].at >= ttl {
		i++
	}
	return turns[i:]
}
