package service

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"go.uber.org/zap"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
)

// fullVerdict is a verdict with every field set, and args as its arguments.
func fullVerdict(args *structpb.Struct) *toolguardv1.ValidateToolCallResponse {
	return &toolguardv1.ValidateToolCallResponse{Verdict: &toolguardv1.Verdict{
		Ok: true, ToolName: "write_to_file", Arguments: args, ArgumentsJson: `{"path":"a.go"}`,
		Repairs:    []*toolguardv1.Repair{{Code: "ALIAS_RENAMED", Param: "path", Detail: "file_path → path"}, {Code: "PYTHON_LITERAL"}},
		Violations: []*toolguardv1.Violation{{Code: "MISSING_REQUIRED", Param: "content", Message: "m"}},
		Feedback:   "f", Mistakes: &toolguardv1.MistakeState{Consecutive: 2, Limit: 3}, CallId: "c1",
		Form: toolguardv1.ArgumentsForm_ARGUMENTS_FORM_TEXT, ViolationsOmitted: 4,
		Elided: []*toolguardv1.Elision{{Field: "content", Size: 9, Sha256: "ab"}},
	}}
}

func str(v string) *structpb.Value { return structpb.NewStringValue(v) }

// sameWire fails unless data reads back as want: decoded, it encodes
// deterministically to want's deterministic encoding (bit for bit, NaN
// included).
func sameWire(t *testing.T, name string, data []byte, want proto.Message) {
	t.Helper()
	got := want.ProtoReflect().New().Interface()
	if err := proto.Unmarshal(data, got); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	det := proto.MarshalOptions{Deterministic: true}
	g, err1 := det.Marshal(got)
	w, err2 := det.Marshal(want)
	if err1 != nil || err2 != nil || !bytes.Equal(g, w) {
		t.Fatalf("%s: read back as %v, want %v (%v, %v)", name, got, want, err1, err2)
	}
}

// TestMarshalVerdictAsProto: a verdict whose arguments are flat is written
// by marshalVerdict, and reads back as the message protobuf-go writes,
// from small to pooled sizes; the message is left as it was. Nested
// arguments, unset values, strings that are not UTF-8 (in the arguments or
// elsewhere) and answers without arguments take the usual path.
func TestMarshalVerdictAsProto(t *testing.T) {
	big := strings.Repeat("def handler(event):\n    return {'status': 200}\n", 3000)
	flat := map[string]*structpb.Struct{
		"strings": {Fields: map[string]*structpb.Value{"path": str("src/a.py"), "content": str("x = 1\n"), "": str("")}},
		"every kind": {Fields: map[string]*structpb.Value{"s": str("é 其 😀"), "n": structpb.NewNumberValue(-0.5), "b": structpb.NewBoolValue(true),
			"f": structpb.NewBoolValue(false), "z": structpb.NewNullValue(), "zero": structpb.NewNumberValue(0), "ключ": str("v")}},
		"odd numbers": {Fields: map[string]*structpb.Value{"nan": structpb.NewNumberValue(math.NaN()), "inf": structpb.NewNumberValue(math.Inf(-1)),
			"neg0": structpb.NewNumberValue(math.Copysign(0, -1)), "big": structpb.NewNumberValue(1e308), "tiny": structpb.NewNumberValue(5e-324)}},
		"empty":    {},
		"pooled":   {Fields: map[string]*structpb.Value{"path": str("a.py"), "content": str(big), strings.Repeat("k", 300): str(big[:200])}},
		"odd null": {Fields: map[string]*structpb.Value{"n": {Kind: &structpb.Value_NullValue{NullValue: structpb.NullValue(7)}}}},
	}
	for name, args := range flat {
		for _, r := range []*toolguardv1.ValidateToolCallResponse{fullVerdict(args), {Verdict: &toolguardv1.Verdict{Arguments: args}}} {
			before := proto.Clone(r)
			data, ok := marshalVerdict(r)
			if !ok {
				t.Fatalf("%s: not written", name)
			}
			if !proto.Equal(r, before) {
				t.Fatalf("%s: the message changed", name)
			}
			if data.Len() != proto.Size(r) {
				t.Fatalf("%s: %d bytes, protobuf-go writes %d", name, data.Len(), proto.Size(r))
			}
			sameWire(t, name, data.Materialize(), r)
			data.Free()
		}
	}
	nested, _ := structpb.NewStruct(map[string]any{"edits": []any{map[string]any{"old": "a"}}})
	inner, _ := structpb.NewStruct(map[string]any{"a": map[string]any{}})
	usual := map[string]*toolguardv1.ValidateToolCallResponse{
		"nested list":        fullVerdict(nested),
		"nested struct":      fullVerdict(inner),
		"no arguments":       fullVerdict(nil),
		"no verdict":         {},
		"unset value":        fullVerdict(&structpb.Struct{Fields: map[string]*structpb.Value{"a": {}}}),
		"nil value":          fullVerdict(&structpb.Struct{Fields: map[string]*structpb.Value{"a": nil}}),
		"key not UTF-8":      fullVerdict(&structpb.Struct{Fields: map[string]*structpb.Value{"a\xff": str("v")}}),
		"value not UTF-8":    fullVerdict(&structpb.Struct{Fields: map[string]*structpb.Value{"a": str("v\xff")}}),
		"feedback not UTF-8": {Verdict: &toolguardv1.Verdict{Feedback: "\xfe", Arguments: &structpb.Struct{Fields: map[string]*structpb.Value{"a": str("v")}}}},
		"repair not UTF-8":   fullVerdict(&structpb.Struct{}),
	}
	usual["repair not UTF-8"].Verdict.Repairs[0].Detail = "\xc3"
	codec := newWireCodec(zap.NewNop())
	for name, r := range usual {
		before := proto.Clone(r)
		if _, ok := marshalVerdict(r); ok {
			t.Fatalf("%s: written by marshalVerdict", name)
		}
		if !proto.Equal(r, before) {
			t.Fatalf("%s: the message changed", name)
		}
		// The codec still answers, as before: strings not UTF-8 as U+FFFD.
		data, err := codec.Marshal(r)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		data.Free()
	}
	// Through the codec, a flat verdict reads back as itself.
	r := fullVerdict(flat["every kind"])
	data, err := codec.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	sameWire(t, "codec", data.Materialize(), r)
}

// FuzzMarshalVerdict: any flat arguments read back as protobuf-go's
// encoding of the same answer, or take the usual path when a string is
// not UTF-8.
func FuzzMarshalVerdict(f *testing.F) {
	f.Add("path", "src/a.py", "content", "x = 1\n", 1.5, true, "feedback")
	f.Add("", "", "\xff", "é", math.Inf(1), false, "")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string, n float64, b bool, feedback string) {
		args := &structpb.Struct{Fields: map[string]*structpb.Value{
			k1: str(v1), k2: str(v2), k1 + "#n": structpb.NewNumberValue(n), k2 + "#b": structpb.NewBoolValue(b), "null": structpb.NewNullValue(),
		}}
		r := fullVerdict(args)
		r.Verdict.Feedback = feedback
		before := proto.Clone(r)
		data, ok := marshalVerdict(r)
		if !proto.Equal(r, before) {
			t.Fatal("the message changed")
		}
		_, err := proto.Marshal(r)
		if ok != (err == nil) {
			t.Fatalf("written: %v; protobuf-go's error: %v", ok, err)
		}
		if ok {
			sameWire(t, "fuzz", data.Materialize(), r)
		}
	})
}

// BenchmarkMarshalVerdict encodes the answer to the server benchmark's
// call (a ~1 KB file's write_to_file verdict) by marshalVerdict and by
// protobuf-go, side by side.
func BenchmarkMarshalVerdict(b *testing.B) {
	content := "# variant 0\n" + strings.Repeat("def handler(event):\n    return {'status': 200}\n", 19)
	args := &structpb.Struct{Fields: map[string]*structpb.Value{"path": str("src/handler.py"), "content": str(content)}}
	r := &toolguardv1.ValidateToolCallResponse{Verdict: &toolguardv1.Verdict{
		Ok: true, ToolName: "write_to_file", Arguments: args, ArgumentsJson: `{"content":"` + strings.ReplaceAll(content, "\n", `\n`) + `","path":"src/handler.py"}`,
		Repairs: []*toolguardv1.Repair{{Code: "PYTHON_LITERAL", Detail: "read as a Python literal"}, {Code: "ALIAS_RENAMED", Param: "path", Detail: `"file_path" renamed to "path"`},
			{Code: "ALIAS_RENAMED", Param: "content", Detail: `"text" renamed to "content"`}, {Code: "TOOL_ALIAS", Detail: `"Write" is "write_to_file"`}},
		Mistakes: &toolguardv1.MistakeState{Limit: 3}, Form: toolguardv1.ArgumentsForm_ARGUMENTS_FORM_TEXT,
	}}
	codec := newWireCodec(zap.NewNop())
	for _, side := range []string{"protobuf-go", "marshalVerdict"} {
		b.Run(side, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var data mem.BufferSlice
				var err error
				if side == "protobuf-go" {
					data, err = codec.proto.Marshal(r)
				} else {
					data, err = codec.Marshal(r)
				}
				if err != nil {
					b.Fatal(err)
				}
				data.Free()
			}
		})
	}
}
