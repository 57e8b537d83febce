package guard

import (
	"fmt"

	"github.com/cespare/xxhash/v2"

	"github.com/toolguard/toolguard/repair"
)

// echoJSON encodes the arguments a verdict echoes, or returns nil when no
// bounded answer could carry them whole: their encoding would be at least
// the verdict's budget (a 16 MB content). fit and elide then encode what
// they echo, with its markers, and the fingerprint hashes the encoding as
// it is written: the arguments' size is never allocated again for it.
// The buffer it returns, if any, is the encoding's memory to release once
// the verdict is (argsbuf.go).
func (g *Guard) echoJSON(echo map[string]any) ([]byte, *argsBuf, error) {
	if b := g.verdictBudget(); b > 0 && echo != nil && jsonAtLeast(echo, b) > b {
		return nil, nil, nil
	}
	return encodeReusing(echo)
}

// jsonAtLeast is a lower bound of v's compact JSON size, counted until it
// passes limit: a string's encoding is at least its bytes and quotes.
func jsonAtLeast(v any, limit int) int {
	switch x := v.(type) {
	case string:
		return len(x) + 2
	case map[string]any:
		n := 2
		for k, e := range x {
			if n += len(k) + 3 + jsonAtLeast(e, limit-n); n > limit {
				return n
			}
		}
		return n
	case []any:
		n := 2
		for _, e := range x {
			if n += 1 + jsonAtLeast(e, limit-n); n > limit {
				return n
			}
		}
		return n
	}
	return 1
}

// streamedSum is fingerprint's hash of a tool's name and its arguments
// encoded, for arguments echoJSON did not encode: the same bytes, hashed
// as they are encoded.
func streamedSum(tool string, args map[string]any) (uint64, error) {
	h := xxhash.New()
	_, _ = h.WriteString(tool)
	_, _ = h.Write([]byte{0})
	if err := repair.WriteJSON(h, args); err != nil {
		return 0, fmt.Errorf("encode arguments: %w", err)
	}
	return h.Sum64(), nil
}
