package eval

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/toolguard/toolguard/proxy"
)

// maxChanges bounds the parameters an example lists as changed.
const maxChanges = 8

// Change is one parameter a repair changed: its value as written and as
// sent (a string's text, any other value's JSON), or instead a line diff
// of the two when either is a string of several lines.
type Change struct {
	Param   string `json:"param"`
	Before  string `json:"before,omitempty"`
	After   string `json:"after,omitempty"`
	Removed bool   `json:"removed,omitempty"` // the parameter was dropped or renamed
	Added   bool   `json:"added,omitempty"`   // the parameter was added or renamed to
	Diff    string `json:"diff,omitempty"`
}

// keepByCode keeps the call as an example of each of its codes that has
// fewer than o.Examples. The codes come from the verdicts, a small fixed
// set, but are bounded as the models are all the same.
func keepByCode(m map[string][]Example, codes []string, n int, r proxy.CallReport, o Options) {
	var e *Example
	for _, c := range codes {
		c = boundedKey(m, c)
		if len(m[c]) >= o.Examples {
			continue
		}
		if e == nil {
			x := example(n, r, o.ExampleBytes)
			e = &x
		}
		m[c] = append(m[c], *e)
	}
}

// changes lists the parameters whose values differ between the arguments
// as written and as repaired, when both are JSON objects, and how many
// more differ than are listed: values are cut at limit bytes, a diff at
// four times that, and the listing stops past four times limit in all
// (or maxChanges parameters). Nothing when the call as written was no
// JSON object (a Python literal, broken JSON): the whole text was
// rewritten, and the example shows both.
func changes(written string, repaired []byte, limit int) (out []Change, more int) {
	var before, after map[string]json.RawMessage
	if len(repaired) == 0 || json.Unmarshal([]byte(written), &before) != nil || json.Unmarshal(repaired, &after) != nil {
		return nil, 0
	}
	keys := slices.Sorted(maps.Keys(before))
	for _, k := range slices.Sorted(maps.Keys(after)) {
		if _, ok := before[k]; !ok {
			keys = append(keys, k)
		}
	}
	budget := 4 * limit
	for _, k := range keys {
		b, inBefore := before[k]
		a, inAfter := after[k]
		if inBefore && inAfter && sameJSON(b, a) {
			continue
		}
		if budget < limit || len(out) == maxChanges {
			more++
			continue
		}
		c := Change{Param: k, Removed: !inAfter, Added: !inBefore}
		bt, at := valueText(b), valueText(a)
		if inBefore && inAfter && (strings.Contains(bt, "\n") || strings.Contains(at, "\n")) {
			c.Diff = truncate(udiff.Unified("as written", "repaired", bt, at), budget)
		} else {
			c.Before, c.After = truncate(bt, limit), truncate(at, limit)
		}
		budget -= len(c.Before) + len(c.After) + len(c.Diff)
		out = append(out, c)
	}
	return out, more
}

func sameJSON(a, b json.RawMessage) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// valueText is a string value's text, or any other value's JSON.
func valueText(v json.RawMessage) string {
	if len(v) == 0 {
		return ""
	}
	var s string
	if v[0] == '"' && json.Unmarshal(v, &s) == nil {
		return s
	}
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return string(v)
	}
	return b.String()
}
