package jsonrepair

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
		// The escaped strings' one-pass decoding, and where it gives way to
		// the general one: invalid UTF-8 before or after an escape, in a
		// word or its last bytes, a string ending the text, a large string.
		{in: "\"\xff \\n\"", want: "\ufffd \n"},
		{in: "\"\\n an \xe6\x97 word\"", want: "\n an \ufffd\ufffd word"},
		{in: "\"0123456789\xc3\\\"\"", want: "0123456789\ufffd\""},
		{in: "[\"\\u00e9\xa9\"]", want: []any{"é\ufffd"}},
		{in: "\"日本語 \\t\"", want: "日本語 \t"},
		{in: `"0123456789abcdef\"`, bad: true},
		{in: `"0123456789abcdef\u12"`, bad: true},
		{in: "\"0123456789\\n\x01\"", bad: true},
		{in: `"` + strings.Repeat(`ab\"cd`, 20000) + `"`, want: strings.Repeat(`ab"cd`, 20000)},
		{in: `["` + strings.Repeat(`ab\"cd`, 20000) + `", "x\ty", "` + strings.Repeat("z", 70000) + `\n"]`, want: []any{strings.Repeat(`ab"cd`, 20000), "x\ty", strings.Repeat("z", 70000) + "\n"}},
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
		got, err := Decode(tc.in)
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
		got, err := Decode(s)
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
