package protoapi

import (
	"encoding/json"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/toolguard/toolguard/repair/jsonrepair"
)

// TestNewStructAsStructpb: newStruct gives what structpb.NewStruct gives,
// message for message, and the same error when it refuses.
func TestNewStructAsStructpb(t *testing.T) {
	deep := map[string]any{"v": "leaf"}
	for range maxBatchDepth + 5 {
		deep = map[string]any{"d": []any{deep, json.Number("1")}}
	}
	tests := map[string]map[string]any{
		"empty":   {},
		"strings": {"path": "src/a.py", "content": "x = 'é'\n", "": ""},
		"scalars": {"n": json.Number("-1.5e3"), "t": true, "f": false, "null": nil, "s": "s"},
		"nested": {"edits": []any{
			map[string]any{"old": "a", "new": "b", "count": json.Number("2"), "opts": []any{nil, true, "x", []any{}}},
			map[string]any{},
		}, "meta": map[string]any{"k": map[string]any{"deeper": []any{json.Number("0")}}}},
		"deep":               deep,
		"not UTF-8 value":    {"ok": "a", "bad": "\xff"},
		"not UTF-8 key":      {"\xfe": "a"},
		"not UTF-8 in list":  {"l": []any{"a", map[string]any{"b": "\xc3("}}},
		"number out of form": {"n": json.Number("1e999")},
		"not a number":       {"n": json.Number("abc")},
		"Go types":           {"i": 3, "f": 1.5, "b": []byte("hi")},
		"unknown type":       {"c": complex(1, 2)},
	}
	// What the parsers produce on a real call.
	parsed, err := jsonrepair.Decode(`{"path": "a", "edits": [{"old": "x", "new": "y", "n": 1.25}], "flag": null, "t": [true, false]}`)
	if err != nil {
		t.Fatal(err)
	}
	tests["parsed"] = parsed.(map[string]any)
	for name, m := range tests {
		t.Run(name, func(t *testing.T) {
			want, wantErr := structpb.NewStruct(m)
			got, err := newStruct(m)
			if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
				t.Fatalf("error %v, structpb's %v", err, wantErr)
			}
			if !proto.Equal(got, want) {
				t.Fatalf("got %v\nstructpb %v", got, want)
			}
			if err == nil && !strings.Contains(name, "not") {
				if _, merr := proto.Marshal(got); merr != nil {
					t.Fatal(merr)
				}
			}
		})
	}
}
