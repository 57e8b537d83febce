package repair

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

// jsReadings are npm jsonrepair's answers to the corpus
// (testdata/jsonrepair_answers.jsonl, written by bench/npm/answers.mjs):
// with the corpus's expected values, the two libraries' readings of each
// case. A missing entry is a case jsonrepair throws on.
func jsReadings(t *testing.T) map[string]any {
	t.Helper()
	f, err := os.Open("testdata/jsonrepair_answers.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]any{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var a struct {
			ID     string `json:"id"`
			Answer any    `json:"answer"`
			Throws bool   `json:"throws"`
		}
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatal(err)
		}
		if !a.Throws {
			out[a.ID] = normalise(a.Answer)
		}
	}
	return out
}

// pyTrimmed is a value as json_repair normalises strings: one that ends in
// a newline loses its trailing whitespace (json_repair's parse_string, by
// default). toolguard keeps it, a file's last newline being content, so a
// value that differs from json_repair's only so is the same reading.
func pyTrimmed(v any) any {
	switch x := v.(type) {
	case string:
		if strings.HasSuffix(x, "\n") {
			return strings.TrimRight(x, " \t\r\n")
		}
		return x
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = pyTrimmed(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = pyTrimmed(e)
		}
		return out
	}
	return v
}

// sameReading reports whether got is a library's reading of case c: the
// expected value (trimmed as json_repair trims, for its cases) or npm
// jsonrepair's.
func sameReading(c corpusCase, got any, js map[string]any) bool {
	var want any
	_ = json.Unmarshal(c.Expected, &want)
	want = normalise(want)
	if reflect.DeepEqual(got, want) {
		return true
	}
	if strings.HasPrefix(c.Source, "mangiucugna/") && reflect.DeepEqual(pyTrimmed(got), want) {
		return true
	}
	other, ok := js[c.ID]
	return ok && reflect.DeepEqual(got, other)
}

// schemaFor is a schema made from a corpus case's expected object: each key
// declared with the JSON type of its expected value, all required, nothing
// else allowed. It is what a tool declaring those parameters would send.
func schemaFor(want map[string]any) map[string]any {
	props := map[string]any{}
	var req []any
	for k, v := range want {
		props[k] = map[string]any{"type": jsonType(v)}
		req = append(req, k)
	}
	return map[string]any{"type": "object", "properties": props, "required": req, "additionalProperties": false}
}

func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	default:
		return "null"
	}
}

// readingOfItsOwn lists cases where toolguard's usable answer is neither
// library's, and why it stands: each keeps every character of the text
// where the libraries' readings drop some. It stays short.
var readingOfItsOwn = map[string]string{}

// TestConformanceThroughSchema runs each corpus case whose answer is an
// object through Validate, with a schema made from the answer's keys. A
// call that comes back usable must carry a value one of the two libraries
// reads in the text: a schema may break a tie the text leaves, never
// override what the text says. Where the text leaves two readings that
// toolguard cannot tell apart, the call is refused.
func TestConformanceThroughSchema(t *testing.T) {
	reg := mustRegistry(t)
	js := jsReadings(t)
	var wrong []string
	usable, refused, own, total := 0, 0, 0, 0
	for _, c := range loadCorpus(t) {
		var want map[string]any
		if json.Unmarshal(c.Expected, &want) != nil || len(want) == 0 {
			continue
		}
		if _, ok := byDesign[c.ID]; ok {
			continue
		}
		total++
		tool, err := reg.Compile(ToolDef{Name: "t", Parameters: schemaFor(want)})
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		res := reg.Validate(Call{Name: "t", Form: FormText, Text: c.Input}, Options{Tools: []*Tool{tool}})
		if !res.OK() {
			refused++
			continue
		}
		usable++
		got := normalise(res.Args)
		if !sameReading(c, got, js) {
			own++
			if _, ok := readingOfItsOwn[c.ID]; ok {
				continue
			}
			raw, _ := json.Marshal(got)
			wrong = append(wrong, fmt.Sprintf("%s %q\n      want %s\n      got  %s", c.ID, c.Input, c.Expected, raw))
		}
	}
	t.Logf("object cases %d: usable %d (%d neither library's reading), refused %d", total, usable, own, refused)
	if own-len(wrong) != len(readingOfItsOwn) {
		t.Errorf("%d cases of readingOfItsOwn now read as a library does or are refused; remove them", len(readingOfItsOwn)-(own-len(wrong)))
	}
	if len(wrong) > 0 {
		t.Errorf("usable with a value the text does not say:\n%s", strings.Join(wrong, "\n"))
	}
}
