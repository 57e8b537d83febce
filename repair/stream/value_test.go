package stream

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestValueScanner(t *testing.T) {
	tests := []struct {
		text string
		// end is the length of the prefix at which the value is complete,
		// -1 when it never is.
		end int
	}{
		{`{"a": 1}`, 8},
		{`  {"todos": [{'content': '创建项目', 'id': '1', 'status': 'in_progress'}]}`, -2},
		{`{"s": "\u00e9\ud83d\ude00 } ] \" '"}`, -2},
		{`{'a': True, b: None,}`, -2},
		{`{"a": [1, 2, {"b": "}"}]} trailing`, 25},
		{`"{\"a\": 1}"`, -2},
		{`[1, 2]`, -2},
		{`{"a": "unterminated`, -1},
		{`{"a": 1`, -1},
		{`{'a': 'it's'}`, -1}, // lost: a quote inside a single-quoted string
		{`42`, -1},            // a bare root value has no end marker
		{``, -1},
	}
	for _, tt := range tests {
		end := tt.end
		if end == -2 {
			end = len(tt.text)
		}
		// Fed one byte at a time, the value is complete exactly at its end.
		var v ValueScanner
		got := -1
		for i := 1; i <= len(tt.text); i++ {
			if v.Scan([]byte(tt.text[:i])) {
				got = i
				break
			}
		}
		if got != end {
			t.Errorf("%q byte by byte: complete at %d, want %d", tt.text, got, end)
		}
		// Fed whole, the answer is the same.
		var whole ValueScanner
		if c := whole.Scan([]byte(tt.text)); c != (end >= 0) {
			t.Errorf("%q whole: complete = %v, want %v", tt.text, c, end >= 0)
		}
		if end >= 0 && !whole.Scan([]byte(tt.text+"}")) {
			t.Errorf("%q: a complete value became incomplete", tt.text)
		}
	}
	var lost ValueScanner
	lost.Scan([]byte(`{'a': 'it's'}`))
	if !lost.Lost() {
		t.Error("a quote inside a single-quoted string: Lost() = false")
	}
}

// FuzzValueScanner: fed in pieces (cut where the fuzzer chose) or one byte
// at a time, the scanner finds a value complete at the same place: the
// first piece whose end is at or after the place it finds byte by byte.
// A valid JSON object, array or string is complete exactly at its end,
// and never before; a value once complete stays complete, and a lost
// scanner never finds an end.
func FuzzValueScanner(f *testing.F) {
	for _, s := range []string{
		`{"a": 1}`,
		`  {"todos": [{'content': '创建项目', 'id': '1', 'status': 'in_progress'}]}`,
		`{"s": "\u00e9\ud83d\ude00 } ] \" '"}`,
		`{'a': True, b: None,}`,
		`{"a": [1, 2, {"b": "}"}]} trailing`,
		`"{\"a\": 1}"`,
		`{'a': 'it's'}`,
		`[{"a":"\`,
	} {
		f.Add([]byte(s), []byte{2, 0, 7})
	}
	f.Fuzz(func(t *testing.T, text, cuts []byte) {
		// Byte by byte: where the value completes, -1 if it never does.
		end := -1
		var one ValueScanner
		for i := 1; i <= len(text); i++ {
			if one.Scan(text[:i]) {
				end = i
				break
			}
			if one.Lost() {
				for j := i + 1; j <= len(text); j++ {
					if one.Scan(text[:j]) {
						t.Fatalf("%q: complete at %d after being lost at %d", text, j, i)
					}
				}
				break
			}
		}
		// In pieces: complete at the first cut at or after end.
		var pieces ValueScanner
		got := -1
		for i, k := 0, 0; i < len(text); k++ {
			gap := 1
			if len(cuts) > 0 {
				gap = int(cuts[k%len(cuts)]) + 1
			}
			i = min(i+gap, len(text))
			if pieces.Scan(text[:i]) {
				got = i
				break
			}
		}
		want := -1
		if end >= 0 {
			// The first cut at or after end.
			for i, k := 0, 0; i < len(text); k++ {
				gap := 1
				if len(cuts) > 0 {
					gap = int(cuts[k%len(cuts)]) + 1
				}
				if i = min(i+gap, len(text)); i >= end {
					want = i
					break
				}
			}
		}
		if got != want {
			t.Fatalf("%q cut by %v: complete at %d, want %d (byte by byte: %d)", text, cuts, got, want, end)
		}
		if end >= 0 && !pieces.Scan(append(text, '}')) {
			t.Fatalf("%q: a complete value became incomplete", text)
		}
		// Valid JSON whose root has a closing byte ends exactly there.
		trimmed := bytes.Trim(text, " \t\r\n")
		if json.Valid(trimmed) && len(trimmed) > 0 && strings.IndexByte(`{["`, trimmed[0]) >= 0 {
			if want := len(bytes.TrimRight(text, " \t\r\n")); end != want {
				t.Fatalf("valid JSON %q: complete at %d, want %d", text, end, want)
			}
		}
	})
}
