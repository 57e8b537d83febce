package stream

import "testing"

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
