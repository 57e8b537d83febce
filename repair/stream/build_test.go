package stream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/repair"
)

// longValue is longer than several of keptString's chunks, with escapes
// and characters of several bytes.
var longValue = strings.Repeat("line \"q\" \\ é 😀 <x>\n", 9000)

var longArgs = func() string {
	raw, _ := json.Marshal(map[string]any{"a": longValue, "l": []any{longValue, "x"}})
	return string(raw)
}()

// TestLongStringPreview: the previews of a string kept in chunks join to
// the value, and the call keeps its text as written.
func TestLongStringPreview(t *testing.T) {
	for _, n := range []int{16, 1000, 70000} {
		var shown strings.Builder
		var call repair.Call
		p, err := New(OpenAI, Options{}, func(e Event) {
			switch e.Kind {
			case EventParam:
				if e.Param == "a" {
					shown.WriteString(e.Text)
				}
			case EventCallClosed:
				call = e.Call
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(longArgs); i += n {
			_ = p.ToolDelta(ToolDelta{Index: 0, ID: "c", Name: "write_to_file", Arguments: longArgs[i:min(i+n, len(longArgs))]})
		}
		_ = p.End(false)
		if shown.String() != longValue {
			t.Errorf("deltas of %d bytes: the previews join to %d bytes, want the %d of the value", n, shown.Len(), len(longValue))
		}
		if call.Text != longArgs || call.Parsed["a"] != longValue {
			t.Errorf("deltas of %d bytes: the call's text or value differs", n)
		}
	}
}

// TestParsedIntegers: a call kept parsed says whether its numbers, at any
// depth, are all integers of at most 18 digits (which read as int64s).
func TestParsedIntegers(t *testing.T) {
	for _, tt := range []struct {
		args string
		want bool
	}{
		{`{"a": "x", "b": true, "c": null}`, true},
		{`{"a": 1, "b": -12, "c": 0, "d": -0}`, true},
		{`{"a": 123456789012345678, "b": -123456789012345678}`, true},
		{`{"a": 1234567890123456789}`, false},
		{`{"a": 1.5}`, false},
		{`{"a": 1e2}`, false},
		{`{"a": 1E2}`, false},
		{`{"a": 1, "o": {"b": [2, 3.25]}}`, false},
		{`{"a": 1.5, "a": 2}`, false}, // the number replaced was read
		{`{"a": 'x', "b": 1}`, false}, // not kept
	} {
		var got, kept bool
		p, err := New(OpenAI, Options{}, func(e Event) {
			if e.Kind == EventCallClosed {
				got, kept = e.Call.ParsedIntegers, e.Call.Parsed != nil
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		_ = p.ToolDelta(ToolDelta{Index: 0, ID: "c", Name: "f"})
		for i := 0; i < len(tt.args); i += 3 {
			_ = p.ToolDelta(ToolDelta{Index: 0, Arguments: tt.args[i:min(i+3, len(tt.args))]})
		}
		_ = p.ToolDelta(ToolDelta{Index: 0, Done: true})
		if got != tt.want || tt.want && !kept {
			t.Errorf("%s: ParsedIntegers = %v (kept %v), want %v", tt.args, got, kept, tt.want)
		}
	}
}

// TestParsedArguments shows which arguments a structured stream keeps as
// parsed (strict JSON only) and the value kept, the same whatever the split.
func TestParsedArguments(t *testing.T) {
	tests := []struct {
		name string
		args string
		want map[string]any // nil: not kept, the validation parses the text
	}{
		{"write call", `{"path": "a.go", "content": "x := \"<b>\"\n\t\\ é"}`,
			map[string]any{"path": "a.go", "content": "x := \"<b>\"\n\t\\ é"}},
		{"every kind of value", `{"n": -1.5e3, "z": 0, "l": [true, false, null, {}, []], "o": {"k": "v"}}`,
			map[string]any{"n": json.Number("-1.5e3"), "z": json.Number("0"), "l": []any{true, false, nil, map[string]any{}, []any{}}, "o": map[string]any{"k": "v"}}},
		{"unicode escapes", `{"s": "\u00e9\ud83d\ude00\ud800x\/"}`, map[string]any{"s": "é😀\uFFFDx/"}},
		{"repeated key: the last wins", `{"a": 1, "a": "two"}`, map[string]any{"a": "two"}},
		{"white space around", " \n{ \"a\" : [ 1 , 2 ] }\r\n ", map[string]any{"a": []any{json.Number("1"), json.Number("2")}}},
		{"empty object", `{}`, map[string]any{}},
		{"empty text", ``, nil},
		{"not an object", `[1]`, nil},
		{"single quotes", `{'a': 1}`, nil},
		{"a NUL after the object", "{\"a\": 1}\x00", nil},
		{"a NUL before a value", "{\"a\": \x001}", nil},
		{"single-quoted value", `{"a": 'x'}`, nil},
		{"bare key", `{a: 1}`, nil},
		{"Python literal", `{"a": True}`, nil},
		{"leading zero", `{"a": 01}`, nil},
		{"trailing comma in an object", `{"a": 1,}`, nil},
		{"trailing comma in an array", `{"a": [1,]}`, nil},
		{"missing comma", `{"a": 1 "b": 2}`, nil},
		{"equals for a colon", `{"a" = 1}`, nil},
		{"invalid escape", `{"a": "\d"}`, nil},
		{"escaped single quote", `{"a": "\'"}`, nil},
		{"raw control character", "{\"a\": \"x\x01y\"}", nil},
		{"raw newline", "{\"a\": \"x\ny\"}", nil},
		{"invalid UTF-8", "{\"a\": \"x\xffy\"}", nil},
		{"text after the object", `{"a": 1} {"b": 2}`, nil},
		{"cut off", `{"a": "x`, nil},
		{"long strings, kept in chunks", longArgs, map[string]any{"a": longValue, "l": []any{longValue, "x"}}},
		// Past indexFrom members an object's keys are indexed, and past
		// chunkMembers its members are kept in a second chunk.
		{"many members, repeated", manyMembers(9000, 0, 8, 4095, 4096, 8999), strictValue(manyMembers(9000, 0, 8, 4095, 4096, 8999))},
		{"many members nested, repeated", `{"o": ` + manyMembers(20, 3, 19) + `, "o": ` + manyMembers(12, 11) + `}`,
			strictValue(`{"o": ` + manyMembers(12, 11) + `}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.want != nil {
				// What is kept is what the validation's own parse gives.
				r, err := repair.RepairJSON(tt.args, repair.JSONOptions{})
				if err != nil || len(r.Repairs) > 0 || !reflect.DeepEqual(r.Value, tt.want) {
					t.Fatalf("RepairJSON = %#v, %v, repairs %v; the table wants %#v", r.Value, err, r.Repairs, tt.want)
				}
			}
			for _, n := range []int{len(tt.args) + 1, 3, 1} {
				var got map[string]any
				closed := false
				p, err := New(OpenAI, Options{}, func(e Event) {
					if e.Kind == EventCallClosed {
						got, closed = e.Call.Parsed, true
					}
				})
				if err != nil {
					t.Fatal(err)
				}
				_ = p.ToolDelta(ToolDelta{Index: 0, ID: "c", Name: "write_to_file"})
				for i := 0; i < len(tt.args); i += n {
					_ = p.ToolDelta(ToolDelta{Index: 0, Arguments: tt.args[i:min(i+n, len(tt.args))]})
				}
				_ = p.ToolDelta(ToolDelta{Index: 0, Done: true})
				if !closed {
					t.Fatalf("deltas of %d bytes: the call did not close", n)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("deltas of %d bytes: Parsed = %#v, want %#v", n, got, tt.want)
				}
			}
		})
	}
}

// TestCallsShareNothing: nothing a call hands out (its text, its parsed
// value, its previews) shares memory that a later call writes, so the calls
// that follow change none of it.
func TestCallsShareNothing(t *testing.T) {
	type seen struct {
		text     string
		parsed   map[string]any
		previews []string
	}
	stream := func(args string) seen {
		var s seen
		p, err := New(OpenAI, Options{}, func(e Event) {
			switch e.Kind {
			case EventParam:
				s.previews = append(s.previews, e.Text+e.JSON)
			case EventCallClosed:
				s.text, s.parsed = e.Call.Text, e.Call.Parsed
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		_ = p.ToolDelta(ToolDelta{Index: 0, ID: "call_1", Name: "write_to_file"})
		for i := 0; i < len(args); i += 5 {
			_ = p.ToolDelta(ToolDelta{Index: 0, Arguments: args[i:min(i+5, len(args))]})
		}
		if err := p.End(false); err != nil {
			t.Fatal(err)
		}
		return s
	}
	args := func(fill byte) string {
		raw, _ := json.Marshal(map[string]any{"path": "a.go", "n": 1, "content": string(bytes.Repeat([]byte{fill}, 3000)) + "\n\"é\""})
		return string(raw)
	}
	first := stream(args('a'))
	want := seen{text: first.text, parsed: maps.Clone(first.parsed), previews: slices.Clone(first.previews)}
	for _, fill := range []byte("bcdefgh") {
		stream(args(fill))
	}
	if !reflect.DeepEqual(first, want) || first.text != args('a') {
		t.Errorf("a later call changed what the first handed out")
	}
}

// TestLongCallSplit: a long call's buffer forgets what its scanner has
// read; whatever the split, the outcome and the kept value are those of the
// call in one piece, which forgets nothing. Strict and lenient arguments,
// values shown whole when complete (objects, long numbers) across many
// fragments, and a call cut off.
func TestLongCallSplit(t *testing.T) {
	long := strings.Repeat(`line \"q\" \\ é 😀 <x>\n`, 400)
	digits := strings.Repeat("1234567890", 300)
	calls := map[string]string{
		"strict": `{"path": "a.go", "content": "` + long + `", "n": [1, 2.5e3, {"k": "` + long + `"}], ` +
			`"o": {"x": "` + long + `", "y": [true, null]}, "z": ` + digits + `, "w": "` + long + `"}`,
		"lenient":  `{path: 'a.go', content: "` + long + `\d", n: True, 'o': {x: '` + long + `'}, z: 0` + digits + `, w: "` + long + `",}`,
		"cut off":  `{"path": "a.go", "o": {"x": [1, {"y": "` + long + `"`,
		"long key": `{"` + strings.Repeat("k", 900) + `": "` + long + `", ` + strings.Repeat("b", 900) + `: 1}`,
	}
	for name, args := range calls {
		pieces := []piece{{delta: &ToolDelta{Index: 0, ID: "c", Name: "write_to_file", Arguments: args, Done: true}}}
		var wholeParsed map[string]any
		whole := feedParsed(t, pieces, &wholeParsed)
		for _, n := range []int{1, 7, 16, 300} {
			t.Run(fmt.Sprintf("%s/%dB", name, n), func(t *testing.T) {
				var parsed map[string]any
				got := feedParsed(t, resplit(pieces, func(l int) []int {
					var at []int
					for i := n; i < l; i += n {
						at = append(at, i)
					}
					return at
				}), &parsed)
				if !reflect.DeepEqual(got, whole) {
					t.Errorf("outcome differs from the call in one piece")
				}
				if !reflect.DeepEqual(parsed, wholeParsed) {
					t.Errorf("kept value differs from the call in one piece")
				}
			})
		}
	}
}

// feedParsed is feed for OpenAI pieces, also returning the kept value.
func feedParsed(t *testing.T, pieces []piece, parsed *map[string]any) outcome {
	t.Helper()
	c := newCollector(t)
	p, err := New(OpenAI, Options{}, func(e Event) {
		if e.Kind == EventCallClosed {
			*parsed = e.Call.Parsed
		}
		c.event(e)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, pc := range pieces {
		if err := p.ToolDelta(*pc.delta); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.End(false); err != nil {
		t.Fatal(err)
	}
	return c.out
}

// TestRepeatedKeyPreviews: only a key's first occurrence is shown, whether
// the keys met are kept by the arguments' builder, by the preview, or
// handed from one to the other when the text stops being strict JSON
// before, inside or after a parameter's value.
func TestRepeatedKeyPreviews(t *testing.T) {
	tests := []struct {
		name, args string
		want       []string
	}{
		{"strict", `{"a": 1, "b": "x", "a": 2, "b": "y"}`, []string{"a=1", "b:x"}},
		{"lenient value", `{"a": 1, "b": "x", "c": True, "b": 3, "c": 4, "a": 5, "d": 6}`, []string{"a=1", "b:x", "c=true", "d=6"}},
		{"lenient inside a value", `{"a": 1, "b": {"k": 'v'}, "b": 2, "a": 3}`, []string{"a=1", `b={"k":"v"}`}},
		{"lenient key", `{"a": 1, 'b': 2, "b": 3, "a": 4, c: 5, "c": 6}`, []string{"a=1", "b=2", "c=5"}},
		{"lenient string", `{"a": "x", "b": "\d", "a": "y", "b": "z"}`, []string{"a:x", `b:\d`}},
		{"strict, indexed", manyMembers(12, 0, 11, 5), firstShown(12)},
		{"lenient after indexed", strings.TrimSuffix(manyMembers(12, 0, 11), "}") + `, "k3": True, "k12": 12}`, append(firstShown(12), "k12=12")},
	}
	for _, tt := range tests {
		for _, n := range []int{len(tt.args), 3, 1} {
			var got []string
			p, err := New(OpenAI, Options{}, func(e Event) {
				if e.Kind != EventParam {
					return
				}
				if e.JSON != "" {
					got = append(got, e.Param+"="+e.JSON)
				} else if k := len(got) - 1; k >= 0 && strings.HasPrefix(got[k], e.Param+":") {
					got[k] += e.Text
				} else {
					got = append(got, e.Param+":"+e.Text)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			_ = p.ToolDelta(ToolDelta{Index: 0, ID: "c", Name: "f"})
			for i := 0; i < len(tt.args); i += n {
				_ = p.ToolDelta(ToolDelta{Index: 0, Arguments: tt.args[i:min(i+n, len(tt.args))]})
			}
			_ = p.End(false)
			if !slices.Equal(got, tt.want) {
				t.Errorf("%s, deltas of %d bytes: previews %q, want %q", tt.name, n, got, tt.want)
			}
		}
	}
}

// manyMembers is an object of n members k0 to k(n-1) whose values are
// their numbers, then the members repeats again, with strings for values.
func manyMembers(n int, repeats ...int) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := range n {
		fmt.Fprintf(&b, `"k%d": %d, `, i, i)
	}
	for _, i := range repeats {
		fmt.Fprintf(&b, `"k%d": "again %d", `, i, i)
	}
	return strings.TrimSuffix(b.String(), ", ") + "}"
}

// firstShown is the previews of manyMembers(n, …): each key once, its
// first value.
func firstShown(n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("k%d=%d", i, i))
	}
	return out
}

// strictValue is the object a strict parse reads from text.
func strictValue(text string) map[string]any {
	d := json.NewDecoder(strings.NewReader(text))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		panic(err)
	}
	return m
}
