package jsonrepair

import (
	"encoding/json"
	"errors"
	"testing"
)

// TestOpenQuotation: a string whose text, as read, leaves a quotation open
// (an odd count of its own unescaped quotes, the last one before a word)
// may end at a quote before a comma or a bracket in two ways: the string's
// end, the quotation left open, or the quotation's end, the string's own
// closing quote forgotten. Neither is the text's, so it is refused, of one
// word as of several. Where the quotation closes inside the string, or the
// inner quote opens none, the text has one reading.
func TestOpenQuotation(t *testing.T) {
	tests := []struct {
		name, text string
		want       string // "" when refused as ambiguous
	}{
		// Refused: the quotation's end or the string's.
		{"one word before a member", `{"a": "x "b", "c": "d"}`, ""},
		{"one word before a member of an item", `{"todos": [{"activeForm": "say "hi", "content": "x", "status": "pending"}]}`, ""},
		{"one word before the next item", `{"args": ["say "hi", "bob"]}`, ""},
		{"one word before the closing brackets", `{"a": "say "hi"}`, ""},
		{"one word before a closing brace and a member", `{"a": "x "b"}, "c": "d"}`, ""},
		{"an item of one word before the closing bracket", `["say "hi"]`, ""},
		{"several words before a member", `{"a": "say "hi there", "c": "d"}`, ""},
		{"a third quote left open", `{"a": "he said "hi" and "bye", "c": "d"}`, ""},
		{"several words after an even count", `{"a": "x("{}", "a \\" b");\nreturn f"Hello, {name}!", "p": "q"}`, ""},
		{"a quote after a space, the text's last character", `{"input": "Body with "`, ""},
		{"a string prefix's quote, the text's last character", `{"input": "+    return f"`, ""},
		{"a raw string's quote after a newline, the text's last character", `{"input": "x = 1\nrb"`, ""},
		{"a quote after a parenthesis, the text's last character", `{"content": "print("`, ""},
		{"a quote after an equals sign, the text's last character", `{"content": "<div class="`, ""},
		{"a quotation's end, the text's last character", `{"input": "return f"Hi {name}"`, ""},
		// One reading.
		{"a quote after a word, the text's last character", `{"input": "Body with x"`, `{"input":"Body with x"}`},
		{"a quote after a word ending in a prefix letter, the text's last character", `{"input": "the club"`, `{"input":"the club"}`},
		{"a quote after a word of prefix letters, the text's last character", `{"input": "a bub"`, `{"input":"a bub"}`},
		{"a quote after a period, the text's last character", `{"input": "Done."`, `{"input":"Done."}`},
		{"one word glued after an even count", `{"key": "v"alu"e", "k": 1}`, `{"k":1,"key":"v\"alu\"e"}`},
		{"a quotation closed inside", `{"a": "he said "hi" twice", "c": "d"}`, `{"a":"he said \"hi\" twice","c":"d"}`},
		{"a quotation closed before a space", `{"a": "say "hi" ", "c": "d"}`, `{"a":"say \"hi\" ","c":"d"}`},
		{"an inch mark opens no quotation", `{"h": "he is 5' 3" tall", "c": 1}`, `{"c":1,"h":"he is 5' 3\" tall"}`},
		{"an apostrophe in a single-quoted string", `{'a': 'it's', 'c': 'd'}`, `{"a":"it's","c":"d"}`},
		{"escaped quotes", `{"a": "say \"hi\"", "c": "d"}`, `{"a":"say \"hi\"","c":"d"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkRepair(t, tc.text, Options{}, tc.want, ErrAmbiguousQuote)
		})
	}
}

// TestItemCommaReadings: an item whose closing quote was forgotten, ended
// at its last comma because a quote follows it, may have ended at an
// earlier comma as well where what follows that one reads as items; then
// the text is refused. Commas followed by words are the item's own.
func TestItemCommaReadings(t *testing.T) {
	tests := []struct {
		name, text string
		want       string // "" when refused as ambiguous
	}{
		{"a literal and a list after an earlier comma", `{"todos":["100% sure,false,[162,408,"x"]]}`, ""},
		{"a number after an earlier comma", `{"t": ["v 1, 2, "x"]}`, ""},
		{"a list after an earlier comma", `{"t": ["a, [1], "x"]}`, ""},
		{"words after the earlier commas", `{"t": ["a, b, c, "x"]}`, `{"t":["a, b, c","x"]}`},
		{"a word that starts with a digit", `{"t": ["a, 50 items, "x"]}`, `{"t":["a, 50 items","x"]}`},
		{"a bracket never opened before the first comma", `{"t": [3.25, [[null, 751, "a & b]], null]}`, ""},
		{"a bracket never opened before a comma a quote follows", "{'todos': [3.25, ['run `make test`], 'say \"hi\"']}", ""},
		{"a brace never opened before a comma a member follows", `{"cfg": {"a": "x}, "b": "y"}}`, ""},
		{"a brace that would close the document before a comma", `{"a": "x}, "b": "y"}`, `{"a":"x}","b":"y"}`},
		{"a brace that would leave a member after an item", `{"t": [{"a": "f() {}\n}, "b": "y"}]}`, `{"t":[{"a":"f() {}\n}","b":"y"}]}`},
		{"a bracket of the other kind", `{"t": [{"a": "x], "b": "y"}]}`, `{"t":[{"a":"x]","b":"y"}]}`},
		{"a bracket opened before the first comma", `{"t": [1, "see [1], more]}`, `{"t":[1,"see [1]","more"]}`},
		{"one comma", `{"t": [false, "50 items,"100% sure"]}`, `{"t":[false,"50 items","100% sure"]}`},
		// An item ending in a comma, the next with no comma between: the
		// comma may be where the item's forgotten quote went.
		{"a comma, then an object", `{"t": ["a,"{b}", 1]}`, ""},
		{"a comma, then a quoted item", `{"t": ["a," "b"]}`, ""},
		{"a comma, then a number", `{"t": ["a," 3]}`, ""},
		{"an item ending in a comma", `{"t": ["a,", "b"]}`, `{"t":["a,","b"]}`},
		{"an item ending in a comma, last", `{"t": ["a,"]}`, `{"t":["a,"]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkRepair(t, tc.text, Options{}, tc.want, ErrAmbiguousQuote)
		})
	}
}

// TestMemberCommaReadings: a value whose closing quote was forgotten ends
// at the comma a member follows, its key bare or quoted; where members
// follow more than one comma, it may end at any of them and is refused.
// Code holding a dict ({x: 2, y: 3};) holds no such member.
func TestMemberCommaReadings(t *testing.T) {
	keys := map[string]bool{"content": true, "path": true, "mode": true}
	tests := []struct {
		name, text string
		keys       map[string]bool
		want       string // "" when refused as ambiguous
	}{
		{"a quoted key after the comma, the text ending", `{'a-b': "it's done, 'emoji': False}`, nil, `{"a-b":"it's done","emoji":false}`},
		{"a quoted known key after the comma", `{"content": "it's done, 'path': 'x'}`, keys, `{"content":"it's done","path":"x"}`},
		{"a bare known key after the comma", `{"content": "it's done, path: x}`, keys, `{"content":"it's done","path":"x"}`},
		{"members after two commas, the text ending", `{"content": "a, path: b, mode: c}`, keys, ""},
		{"members after two commas, a quote after the last", `{"content": "a, path: b, mode: "c"}`, keys, ""},
		{"a member after an earlier comma, a quoted one after the last", `{"content": "a, path: b, "mode": "c"}`, keys, ""},
		{"a quoted member after an earlier comma, a bare key after the last", `{"content": "a, 'path': 'x', b, mode: [1`, keys, ""},
		{"an unknown key after an earlier comma", `{"content": "a, x: b, "mode": "c"}`, keys, `{"content":"a, x: b","mode":"c"}`},
		{"a dict in code before the member", `{"content": "const a = {x: 2, y: 3};\nf(), "path": "p"}`, nil, `{"content":"const a = {x: 2, y: 3};\nf()","path":"p"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkRepair(t, tc.text, Options{Keys: tc.keys}, tc.want, ErrAmbiguousQuote)
		})
	}
}

// checkRepair repairs text with opts and checks the result against want,
// its JSON encoding, or, when want is "", that Repair refused it with
// refusal. It returns the result for further checks.
func checkRepair(t *testing.T, text string, opts Options, want string, refusal error) Result {
	t.Helper()
	r, err := Repair(text, opts)
	if want == "" {
		if !errors.Is(err, refusal) {
			got, _ := json.Marshal(r.Value)
			t.Fatalf("Repair(%q) = %s, %v; want %v", text, got, err, refusal)
		}
		return r
	}
	if err != nil {
		t.Fatalf("Repair(%q): %v", text, err)
	}
	if got, _ := json.Marshal(r.Value); string(got) != want {
		t.Errorf("Repair(%q) = %s, want %s", text, got, want)
	}
	return r
}
