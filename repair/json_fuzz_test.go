package repair

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/repair/jsonrepair"
)

func stdDecode(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data")
	}
	// Decoder.More does not see trailing non-space garbage after a value in
	// every case; re-check with Unmarshal's full-input rule.
	if !json.Valid([]byte(s)) {
		return nil, errors.New("invalid")
	}
	return v, nil
}

// FuzzRepairJSON: no panic; the result is valid JSON (it encodes, and the
// encoding decodes strictly to the same value) or a clear error; repairing
// the encoded result changes nothing (idempotence); valid JSON passes
// through with no repairs and the value encoding/json gives.
func FuzzRepairJSON(f *testing.F) {
	for _, s := range []string{
		`{"a":1}`, `{'a': True, "b": None,}`, "```json\n{\"a\": [1, 2,]}\n```", `{"content": "print("hi")", "path": "a.py"}`,
		`{"a": "cut`, `[1, 2, ...]`, `{a: b, c: 'd'}`, `// c\n{"a": /* x */ 1}`, `{"a":"b"}{"c":"d"}`, `"\u26"`,
		`{"x": "a, {"k": 1}, "y": 2}`, `{“a”: “b”}`, `(1, 2)`, `{'a', 'b'}`, `{"a" 1 "b" 2}`, `[{"i":1{"i":2}]`,
		`{"selected: ["A", "C"]}`, `{"a": 1, "other: "x"}`, `{"time: 12:00": "x",}`, "```json\n{\"other: 1}\n```",
		"{'c': '''a\\n'b' \\\n\"\"\"d\"\"\"'''}", `{'p': r'\d+', 'q': u'x', 'r': """y""" + 'z'}`, `{'a': '''cut`, `{"a": """}`,
	} {
		f.Add(s)
	}
	// Keys as a tool declares them: an unclosed key quote is then closed
	// or refused by them.
	keys := map[string]bool{"selected": true, "a": true, "c": true, "p": true}
	f.Fuzz(func(t *testing.T, s string) {
		checkRepaired(t, s, JSONOptions{Keys: keys})
		checkRepaired(t, s, JSONOptions{})
	})
}

// checkRepaired checks FuzzRepairJSON's properties for one text.
func checkRepaired(t *testing.T, s string, opts JSONOptions) {
	r, err := RepairJSON(s, opts)
	if err != nil {
		return
	}
	raw, err := EncodeJSON(r.Value)
	if err != nil {
		t.Fatalf("%q: result does not encode: %v (%#v)", s, err, r.Value)
	}
	again, err := jsonrepair.Decode(string(raw))
	if err != nil {
		t.Fatalf("%q: encoded result is not valid JSON: %v", s, err)
	}
	r2, err := RepairJSON(string(raw), opts)
	if err != nil || len(r2.Repairs) != 0 || !reflect.DeepEqual(r2.Value, again) {
		t.Fatalf("%q: repairing the repaired text changed it: %v %v", s, err, r2.Repairs)
	}
	if want, werr := stdDecode(s); werr == nil {
		if len(r.Repairs) != 0 {
			t.Fatalf("%q: valid JSON got repairs %v", s, r.Repairs)
		}
		if !reflect.DeepEqual(r.Value, want) {
			t.Fatalf("%q: valid JSON changed: %#v vs %#v", s, r.Value, want)
		}
	}
}
