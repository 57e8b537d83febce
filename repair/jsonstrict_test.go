package repair

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
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

func TestDecodeJSON(t *testing.T) {
	tests := []struct {
		in   string
		want any
		bad  bool
	}{
		{in: `{}`, want: map[string]any{}},
		{in: ` [1, -0.5e+3, "a", true, false, null] `, want: []any{json.Number("1"), json.Number("-0.5e+3"), "a", true, false, nil}},
		{in: `{"a":{"b":[{}]}}`, want: map[string]any{"a": map[string]any{"b": []any{map[string]any{}}}}},
		{in: `"C:\\Users\\x \"q\" \/ \u00e9 \ud83d\ude00 \t"`, want: "C:\\Users\\x \"q\" / é 😀 \t"},
		{in: `"lone \ud800 surrogate"`, want: "lone \ufffd surrogate"},
		{in: "\"bad \xff utf8\"", want: "bad \ufffd utf8"},
		{in: `"\title and \\begin"`, want: "\title and \\begin"}, // JSON \t is a tab, \\ a backslash
		{in: `{"a":1,"a":2}`, want: map[string]any{"a": json.Number("2")}},
		{in: `{"a":1,}`, bad: true},
		{in: `[1 2]`, bad: true},
		{in: `{'a':1}`, bad: true},
		{in: `01`, bad: true},
		{in: `1.`, bad: true},
		{in: `"a` + "\n" + `b"`, bad: true},
		{in: `{"a":1} {}`, bad: true},
		{in: `tru`, bad: true},
		{in: strings.Repeat("[", 600) + strings.Repeat("]", 600), bad: true},
	}
	for _, tc := range tests {
		got, err := decodeJSON(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("%q: accepted as %v", tc.in, got)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: got %#v, want %#v", tc.in, got, tc.want)
		}
	}
}

// FuzzDecodeJSON checks the strict parser against encoding/json: the same
// inputs are accepted, with the same values.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{`{}`, `[1,2]`, `{"a":"b\n"}`, `"\ud83d\ude00"`, `-0.1e5`, `{"a":[{"b":null}]}`, "\"\xff\"", `"\u0000"`, ` 1 `, `[`, `{"a" 1}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, wantErr := stdDecode(s)
		got, err := decodeJSON(s)
		if err != nil && strings.Contains(err.Error(), "nesting deeper") {
			return
		}
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("%q: ours err=%v, encoding/json err=%v", s, err, wantErr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			a, _ := json.Marshal(got)
			b, _ := json.Marshal(want)
			if !bytes.Equal(a, b) {
				t.Fatalf("%q: ours %s, encoding/json %s", s, a, b)
			}
		}
	})
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
	again, err := decodeJSON(string(raw))
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
