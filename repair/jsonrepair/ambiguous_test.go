package jsonrepair

import (
	"encoding/json"
	"errors"
	"testing"
)

// TestQuoteReadings: a string's end is taken from the text only where the
// text settles it. A quote inside a string that could have ended it (one
// before a space or a comma), with no closing quote of the string's own to
// settle which, leaves two readings and the text is refused; so does a
// string that escapes its quote in one place and not in another. Where
// one reading is the text's, it is read.
func TestQuoteReadings(t *testing.T) {
	tests := []struct {
		name, text string
		want       string // "" when refused as ambiguous
		truncated  bool
	}{
		// Refused: two readings.
		{"stray word after a closing quote, no quote at the end", `{"path": "a.py" AAAA }`, "", false},
		{"literal after a closing quote", `{"recursive": "yes" true}`, "", false},
		{"forgotten quote with a quotation before a space", `{"content": "say "hi" twice}`, "", false},
		{"item with quotes, ended by a comma", `{"args": ["say "hi" to, "bob"]}`, "", false},
		{"quotes escaped and not", `{"content": "x = \"a\" + "b""}`, "", false},
		{"a closer the text never opened", `{"key": "value} key2: value2}`, "", false},
		{"an item with a quotation, then a quote", `{"todos": ["say "hi""]}`, "", false},
		{"a quotation of words left open before a member", `{"content": "return f"Hello, {name}!", "path": "a.py"}`, "", false},
		{"a stray quote and brace after the last value", `{"arguments": {"path": "web/index.html"}"}}`, "", false},
		{"more closing brackets than open containers", "{\"content\": \"fn main() {\\n  println!(\\\"}\\\");\\n}}", "", false},
		{"an item's quote forgotten before words and a colon", `{"todos": ["x, y: z]}`, "", false},
		{"a quote on a line of its own before the closing one", "{\"a\": \"hello\n\"\n\",}", "", false},
		{"only marks after a quote before a colon", `{ "a" : "{ b": {} }" }`, "", false},
		// One reading.
		{"escaped quotes beside typographic ones", "{\"a\": \"say \\\"hi\\\" and \u201csmart\u201d ok\",}", "{\"a\":\"say \\\"hi\\\" and \u201csmart\u201d ok\"}", false},
		{"a quoted value ending a line, more lines after", "{\"content\": \"name: \"v\"\nmore\"}", `{"content":"name: \"v\"\nmore"}`, false},
		{"forgotten closing quote before the bracket", `{"url": "https://x.org/a}`, `{"url":"https://x.org/a"}`, false},
		{"quotation inside a value", `{"msg": "he said "hi" twice"}`, `{"msg":"he said \"hi\" twice"}`, false},
		{"item with a quotation", `{"args": ["say "hi" to", "bob"]}`, `{"args":["say \"hi\" to","bob"]}`, false},
		{"forgotten quote after a call", `{"content": "print("hi") }`, `{"content":"print(\"hi\")"}`, false},
		{"object text inside a value, then more words", `{"x": "the answer is {"a": "b"}, not a string"}`, `{"x":"the answer is {\"a\": \"b\"}, not a string"}`, false},
		{"a member after a value that closes", `{"a": "x"}, "b": "y"}`, `{"a":"x","b":"y"}`, false},
		{"quoted key inside an unclosed value", `{"x": "a, {"k": 1}, "y": 2}`, `{"x":"a, {\"k\": 1}","y":2}`, false},
		{"an item's quote forgotten before the next", `{"tags": [false, "50 items,"100% sure"]}`, `{"tags":[false,"50 items","100% sure"]}`, false},
		// Cut off after a bracket of the content: the content's, not a
		// forgotten quote's end.
		{"code cut after its closing brace", "{\"content\": \"function f() {\\n  return 1;\\n}", `{"content":"function f() {\n  return 1;\n}"}`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := checkRepair(t, tc.text, Options{}, tc.want, ErrAmbiguousQuote)
			if tc.want != "" && r.Truncated != tc.truncated {
				t.Errorf("Repair(%q): truncated=%v, want %v", tc.text, r.Truncated, tc.truncated)
			}
		})
	}
}

// TestUnknownMemberAfterQuote: with the schema's keys known, a clean member
// of another name after a quote ends the string only where the object then
// closes its containers to the end, or goes on to a sibling object (a list
// of items); code that holds a dict goes on and stays content.
func TestUnknownMemberAfterQuote(t *testing.T) {
	levels := []map[string]bool{{"edits": true, "content": true, "path": true}, {"old_string": true, "new_string": true, "id": true}}
	tests := []struct{ name, text, want string }{
		{"dict in code content", `{"content": "d = {"a": "x", "b": "y"} or e", "path": "p"}`, `{"content":"d = {\"a\": \"x\", \"b\": \"y\"} or e","path":"p"}`},
		{"dict in an edit's text", `{"edits": [{"old_string": "f({"a": "x", "b": "y"}, 1)", "new_string": "g()"}]}`, `{"edits":[{"new_string":"g()","old_string":"f({\"a\": \"x\", \"b\": \"y\"}, 1)"}]}`},
		{"extra member of an item", `{"edits": [{'id': '1', 'priority': 'high'}]}`, `{"edits":[{"id":"1","priority":"high"}]}`},
		{"extra member, then a sibling", `{"edits": [{'id': '1', 'priority': 'high'}, {'id': '2'}]}`, `{"edits":[{"id":"1","priority":"high"},{"id":"2"}]}`},
		{"braces and a key in an edit's text", `{"edits": [{"old_string": "f({"a": 1}, {"b": 2})", "new_string": "g()"}]}`, `{"edits":[{"new_string":"g()","old_string":"f({\"a\": 1}, {\"b\": 2})"}]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Repair(tc.text, Options{Levels: levels})
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := json.Marshal(r.Value); string(got) != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// TestStrayQuoteAsKey: a quote after an object's last member, before the
// closing brackets, reads as a key without its closing quote as much as a
// stray one, and is refused as such.
func TestStrayQuoteAsKey(t *testing.T) {
	for _, text := range []string{`{"arguments": {"x": 1296}"}}`, `{"a" ]`} {
		if r, err := Repair(text, Options{}); !errors.Is(err, ErrKeyQuote) {
			t.Errorf("%s: err = %v (value %v), want ErrKeyQuote", text, err, r.Value)
		}
	}
}

// TestSiblingInsideValue: a value that took quotes for content and holds
// its object's end and a sibling item with one of the item's keys may
// have ended before the brace; the text leaves both readings.
func TestSiblingInsideValue(t *testing.T) {
	levels := []map[string]bool{{"todos": true}, {"content": true, "status": true}}
	for _, text := range []string{
		`{"todos": [{"content": "a", "status": "done" extra}, {"content": "b", "status": "open"}]}`,
		`{"todos": [{'content': 'a', 'status': 'done}, {'content': 'b', 'status': 'open'}]}`,
		`{"todos": ["a & b, false, {"status": -71}]}`,
	} {
		if r, err := Repair(text, Options{Levels: levels}); !errors.Is(err, ErrAmbiguousQuote) {
			got, _ := json.Marshal(r.Value)
			t.Errorf("%s: err = %v (value %s), want ErrAmbiguousQuote", text, err, got)
		}
	}
}

// TestGuessedMemberUnderOpenSchema: `, y: z` in a value missing its
// closing quote is a member as both libraries read it without a schema;
// under a schema that lists no keys there, it is one reading of two.
func TestGuessedMemberUnderOpenSchema(t *testing.T) {
	text := `{"todos": [{"name": "x, y: z}]}`
	r, err := Repair(text, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(r.Value); string(got) != `{"todos":[{"name":"x","y":"z"}]}` {
		t.Errorf("no schema: got %s", got)
	}
	if _, err := Repair(text, Options{Levels: []map[string]bool{{"todos": true}}}); !errors.Is(err, ErrAmbiguousQuote) {
		t.Errorf("open level under a schema: err = %v, want ErrAmbiguousQuote", err)
	}
	r, err = Repair(text, Options{Levels: []map[string]bool{{"todos": true}, {"name": true, "y": true}}})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(r.Value); string(got) != `{"todos":[{"name":"x","y":"z"}]}` {
		t.Errorf("declared key: got %s", got)
	}
}
