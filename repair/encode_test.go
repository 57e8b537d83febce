package repair

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// stdEncode is what EncodeJSON must equal: encoding/json without HTML
// escaping, no trailing newline.
func stdEncode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func TestEncodeJSON(t *testing.T) {
	long := strings.Repeat("func f() { s := \"</content> é \\\\ {}\" } // line\n", 40)
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"nil", nil, `null`},
		{"nil map", map[string]any(nil), `null`},
		{"nil slice", []any(nil), `null`},
		{"empty", map[string]any{}, `{}`},
		{"sorted keys", map[string]any{"b": true, "a": false, "ab": nil}, `{"a":false,"ab":null,"b":true}`},
		{"keys sharing or padding a prefix", map[string]any{"abcdefgh2": "1", "abcdefgh": "2", "abcdefgh10": "3", "a\x00": "4", "a": "5", "\xc3\xa9": "6", "z": "7"},
			`{"a":"5","a\u0000":"4","abcdefgh":"2","abcdefgh10":"3","abcdefgh2":"1","z":"7","é":"6"}`},
		{"html kept", "<div>&</div>", `"<div>&</div>"`},
		{"short escapes", "q\"b\\\b\f\n\r\t", `"q\"b\\\b\f\n\r\t"`},
		{"control bytes", "\x00\x01\x1f\x7f", `"\u0000\u0001\u001f` + "\x7f" + `"`},
		{"line separators", "a\u2028b\u2029c", `"a\u2028b\u2029c"`},
		{"invalid utf8", "ab\xffcdefghij\xed\xa0\x80", `"ab\ufffdcdefghij\ufffd\ufffd\ufffd"`},
		{"non-ASCII", "é😀 日本", `"é😀 日本"`},
		{"escape after 8 plain bytes", "abcdefgh\"ijklmnop\n", `"abcdefgh\"ijklmnop\n"`},
		{"number", json.Number("-1.5e+10"), `-1.5e+10`},
		{"zero number", json.Number(""), `0`},
		{"nested", map[string]any{"edits": []any{map[string]any{"old": "x", "new": "y"}, json.Number("3")}, "k\"ey": "v"},
			`{"edits":[{"new":"y","old":"x"},3],"k\"ey":"v"}`},
		{"float fallback", map[string]any{"n": 1.5, "s": "<"}, `{"n":1.5,"s":"<"}`},
		{"string map fallback", map[string]string{"b": "<", "a": "1"}, `{"a":"1","b":"<"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := EncodeJSON(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("EncodeJSON = %s, want %s", got, tt.want)
			}
			std, _ := stdEncode(tt.v)
			if !bytes.Equal(got, std) {
				t.Errorf("EncodeJSON = %s, encoding/json %s", got, std)
			}
		})
	}
	got, _ := EncodeJSON(map[string]any{"content": long})
	if std, _ := stdEncode(map[string]any{"content": long}); !bytes.Equal(got, std) {
		t.Errorf("long content differs from encoding/json")
	}
}

func TestEncodeJSONInvalidNumber(t *testing.T) {
	for _, n := range []string{"01", "1.", ".5", "1e", "1e+", "+1", "-", "0x10", "1 ", "NaN"} {
		_, err := EncodeJSON(map[string]any{"n": json.Number(n)})
		_, stdErr := stdEncode(map[string]any{"n": json.Number(n)})
		if err == nil || stdErr == nil || err.Error() != stdErr.Error() {
			t.Errorf("json.Number(%q): error %v, encoding/json's %v", n, err, stdErr)
		}
	}
	for _, n := range []string{"0", "-0", "10", "1.25", "1e5", "1E-5", "-0.0e+00"} {
		if !isNumberLiteral(n) {
			t.Errorf("isNumberLiteral(%q) = false", n)
		}
	}
}

// FuzzEncodeJSON checks EncodeJSON against encoding/json on whatever the
// repair parser makes of the input, and on the input as one string.
func FuzzEncodeJSON(f *testing.F) {
	for _, s := range []string{`{"a":"<\u2028>","b":[1,2.5e3,true,null]}`, "\"\xff\xed\xa0\x80\x00\x1f\"", `{"content":"line\n\ttab \"q\" \\ é 😀"}`, `[{"z":1,"a":{}}]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		values := []any{s, json.Number(s), map[string]any{s: s}}
		if r, err := RepairJSON(s, JSONOptions{}); err == nil {
			values = append(values, r.Value)
		}
		for _, v := range values {
			got, err := EncodeJSON(v)
			want, stdErr := stdEncode(v)
			if (err != nil) != (stdErr != nil) || !bytes.Equal(got, want) {
				t.Fatalf("EncodeJSON(%#v) = %q, %v; encoding/json %q, %v", v, got, err, want, stdErr)
			}
		}
	})
}

// TestAppendJSON: AppendJSON writes EncodeJSON's bytes after what dst holds.
func TestAppendJSON(t *testing.T) {
	for _, v := range []any{"a\n<b>", json.Number("1.50"), map[string]any{"b": 1.5, "a": []any{nil, true}}} {
		want, err := EncodeJSON(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := AppendJSON([]byte("key\x00"), v)
		if err != nil || string(got) != "key\x00"+string(want) {
			t.Errorf("AppendJSON(%v) = %q, %v; want %q", v, got, err, "key\x00"+string(want))
		}
	}
}

// TestPlainWords: the word-at-a-time scan stops at the word holding the
// first byte a JSON string escapes or that starts a multi-byte rune, for
// every byte value at every position of a word, beside plain bytes of
// every value.
func TestPlainWords(t *testing.T) {
	for b := range 256 {
		for _, fill := range []byte{' ', 'a', '!', '#', '[', ']', '~', 0x7f} {
			for p := range 16 {
				s := []byte(strings.Repeat(string(fill), 20))
				s[p] = byte(b)
				want := 16
				if !plainASCII[b] {
					want = p / 8 * 8
				}
				if got := plainWords(string(s), 0); got != want {
					t.Fatalf("byte %#x at %d among %q: plainWords = %d, want %d", b, p, fill, got, want)
				}
			}
		}
	}
}

// TestEncodeJSONLargeObject: objects of radixMembers members and more,
// sorted by radix, and of splitMembers and more, split first and their
// keys read in the order they lie in memory, are encoded as encoding/json
// does, whatever their keys share (a first byte, eight bytes and more,
// padding zeros, non-ASCII) and wherever they lie.
func TestEncodeJSONLargeObject(t *testing.T) {
	keys := map[string]func(i int) string{
		"numbered":            func(i int) string { return fmt.Sprintf("p%d", i) },
		"sharing eight bytes": func(i int) string { return fmt.Sprintf("parameter_%d", i*7919%100_003) },
		"short and padded":    func(i int) string { return strings.Repeat("a\x00", i%5) + string(rune('a'+i%26)) + strconv.Itoa(i) },
		"non-ASCII":           func(i int) string { return fmt.Sprintf("%c%x", 'é'+rune(i%300), i) },
		"one prefix":          func(i int) string { return fmt.Sprintf("abcdefgh%d", i) },
		// Keys that lie far apart in memory (the program's constants and
		// the heap), and the empty key, which lies nowhere.
		"scattered": func(i int) string {
			switch {
			case i == 0:
				return ""
			case i%5 == 0:
				return [...]string{"path", "content", "zz", "a", "\x00"}[i%25/5]
			}
			return strconv.Itoa(i)
		},
	}
	for name, key := range keys {
		for _, n := range []int{radixMembers - 1, radixMembers, 3000, splitMembers, splitMembers + 3000} {
			m := make(map[string]any, n)
			for i := range n {
				m[key(i)] = json.Number(strconv.Itoa(i))
			}
			got, err := EncodeJSON(m)
			if err != nil {
				t.Fatal(err)
			}
			if std, _ := stdEncode(m); !bytes.Equal(got, std) {
				t.Errorf("%s, %d members: differs from encoding/json", name, n)
			}
		}
	}
}
