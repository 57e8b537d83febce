package protoapi

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
)

func TestJSONDeeper(t *testing.T) {
	tests := []struct {
		text  string
		limit int
		want  bool
	}{
		{`{"a": [1, {"b": 2}]}`, 3, false},
		{`{"a": [1, {"b": 2}]}`, 2, true},
		{`[[[]]] [[[]]]`, 3, false}, // siblings do not add up
		{`{"a": "[[[[[[[[[["}`, 2, false},
		{`{"a": "say \"[[[[\" [["}`, 1, false},
		{`{"a": "\\"} [[[`, 2, true}, // the escaped backslash ends the string
		{`}}}]]] [[`, 2, false},      // broken JSON: depth never below zero
		{`{"a": "unterminated [[[[[`, 1, false},
		{strings.Repeat("[", 65), 64, true},
		{strings.Repeat("[", 64) + strings.Repeat("]", 64), 64, false},
		{strings.Repeat("[", 1000), 0, false}, // no bound
	}
	for _, tt := range tests {
		if got := jsonDeeper(tt.text, tt.limit); got != tt.want {
			t.Errorf("jsonDeeper(%.40q, %d) = %v, want %v", tt.text, tt.limit, got, tt.want)
		}
	}
}

func TestStructDeeper(t *testing.T) {
	nested := func(levels int) *structpb.Struct {
		var v any = "leaf"
		for i := 1; i < levels; i++ {
			if i%2 == 0 {
				v = []any{v}
			} else {
				v = map[string]any{"k": v}
			}
		}
		s, err := structpb.NewStruct(map[string]any{"top": v})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, tt := range []struct {
		levels, limit int
		want          bool
	}{{1, 1, false}, {2, 1, true}, {5, 5, false}, {6, 5, true}, {100, 64, true}, {100, 0, false}} {
		if got := StructDeeper(nested(tt.levels), tt.limit); got != tt.want {
			t.Errorf("structDeeper(%d levels, %d) = %v, want %v", tt.levels, tt.limit, got, tt.want)
		}
	}
}

// TestStreamFormats checks that every StreamFormat the API declares maps to
// the parser's format of the same name: a value added to the proto and
// left out here would refuse every stream that uses it.
func TestStreamFormats(t *testing.T) {
	for v, name := range toolguardv1.StreamFormat_name {
		f := toolguardv1.StreamFormat(v)
		if f == toolguardv1.StreamFormat_STREAM_FORMAT_UNSPECIFIED {
			continue
		}
		got, ok := streamFormats[f]
		if want := strings.ToLower(strings.TrimPrefix(name, "STREAM_FORMAT_")); !ok || got.String() != want {
			t.Errorf("%s maps to %v (%v), want the parser's %q", name, got, ok, want)
		}
	}
}
