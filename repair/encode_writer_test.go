package repair

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// longAround repeats s until it crosses WriteJSON's piece size twice, and
// puts it at every offset around the first cut.
func longAround(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	for pad := range min(len(s), 8) + 1 {
		out = append(out, strings.Repeat("a", writeChunk-pad)+strings.Repeat(s, writeChunk/len(s)+2))
	}
	return out
}

// checkWriteJSON: WriteJSON writes EncodeJSON's bytes, or fails as it
// does, in pieces of chunk bytes (0: its own).
func checkWriteJSON(t *testing.T, v any, chunk int) {
	t.Helper()
	want, wantErr := EncodeJSON(v)
	var got bytes.Buffer
	var err error
	if chunk == 0 {
		err = WriteJSON(&got, v)
	} else {
		jw := jsonWriter{w: &got, chunk: chunk}
		jw.value(v)
		err = jw.err
	}
	if (err != nil) != (wantErr != nil) || err == nil && !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("WriteJSON(%.80q...) in pieces of %d = %.80q..., %v; EncodeJSON %.80q..., %v", v, chunk, got.Bytes(), err, want, wantErr)
	}
}

func TestWriteJSON(t *testing.T) {
	values := []any{nil, true, false, json.Number("1.50"), json.Number(""), "", "a\n<b>\u2028",
		map[string]any{}, map[string]any(nil), []any(nil), []any{},
		map[string]any{"b": 1.5, "a": []any{nil, true, "x\"y"}, "": map[string]any{"é": "\x00"}},
		json.Number("1e"), map[string]any{"n": json.Number("--1")}, []any{struct{ A int }{1}}}
	for _, s := range []string{"é", "😀", "\xff", "\xe2\x82", "\xe2\x82\x41", "\u2028", "\"\\\n\x01", "\x80\x80\x80\x80\x80"} {
		for _, long := range longAround(s) {
			values = append(values, long, map[string]any{"content": long, "path": "p"}, []any{long})
		}
	}
	for _, v := range values {
		checkWriteJSON(t, v, 0)
	}
}

func FuzzWriteJSON(f *testing.F) {
	for _, s := range []string{`{"content":"line\n\ttab \"q\" \\ é 😀"}`, "\"\xff\xed\xa0\x80\x00\x1f\"", "\xe2\x82\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		values := []any{s, map[string]any{s: s}}
		if r, err := RepairJSON(s, JSONOptions{}); err == nil {
			values = append(values, r.Value)
		}
		// Pieces of every small size cut the strings at every place.
		for chunk := range 6 {
			for _, v := range values {
				checkWriteJSON(t, v, chunk)
			}
		}
	})
}
