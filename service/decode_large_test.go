package service

import (
	"strings"
	"testing"
	"unsafe"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
)

// largeWire is the encodings decodeLarge is given: large strings where
// it takes them, and where it must not (repeated, met twice, beside
// another field of their oneof, in a map, not UTF-8, cut off).
func largeWire(t testing.TB) map[string][]byte {
	big := strings.Repeat("def f():\n    return 'é'\n", 4000) // ~100 KB
	call := func(c *toolguardv1.ToolCall) []byte {
		return mustMarshal(t, &toolguardv1.ValidateToolCallRequest{Context: &toolguardv1.RequestContext{SessionId: "s", ModelId: "m"}, Call: c})
	}
	text := call(&toolguardv1.ToolCall{Name: "write_to_file", Id: "c1", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: big}})
	// A field after the ToolCall naming another member of its oneof.
	xmlAfter := protowire.AppendBytes(protowire.AppendTag(nil, 4, protowire.BytesType), []byte("<read_file><path>a</path></read_file>"))
	xmlAfter = append(slicesClone(text), protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), xmlAfter)...)
	// In the ToolCall itself, after the large text: a small one, another
	// member of its oneof. protobuf keeps the last.
	within := func(field protowire.Number, v string) []byte {
		c := mustMarshal(t, &toolguardv1.ToolCall{Name: "write_to_file", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: big}})
		c = protowire.AppendBytes(protowire.AppendTag(c, field, protowire.BytesType), []byte(v))
		return protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), c)
	}
	params, err := structpb.NewStruct(map[string]any{"content": big})
	if err != nil {
		t.Fatal(err)
	}
	notUTF8 := call(&toolguardv1.ToolCall{Name: "write_to_file", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: big}})
	i := strings.Index(string(notUTF8), "é")
	notUTF8[i+1] = 0xff
	return map[string][]byte{
		"arguments_text":   text,
		"xml_block":        call(&toolguardv1.ToolCall{Name: "x", Arguments: &toolguardv1.ToolCall_XmlBlock{XmlBlock: "<write_to_file><content>" + big + "</content></write_to_file>"}}),
		"the call twice":   append(slicesClone(text), text...),
		"another of oneof": xmlAfter,
		"text twice":       within(2, "{}"),
		"xml after text":   within(4, "<read_file><path>a</path></read_file>"),
		"in a map": call(&toolguardv1.ToolCall{Name: "write_to_file", Arguments: &toolguardv1.ToolCall_Params{
			Params: &toolguardv1.StringParams{Values: map[string]string{"content": big, "path": "a"}}}}),
		"in a list": mustMarshal(t, &toolguardv1.ValidateToolCallRequest{Call: &toolguardv1.ToolCall{Name: "t"},
			Tools: []*toolguardv1.ToolDefinition{{Name: "t", Description: big, Parameters: params}}}),
		"execute write": mustMarshal(t, &toolguardv1.ExecuteWriteRequest{Call: &toolguardv1.ToolCall{Name: "write_to_file",
			Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: big}}, ExpectedSha256: "abc", DryRun: true}),
		"not UTF-8": notUTF8,
		"cut off":   text[:len(text)-10],
	}
}

func mustMarshal(t testing.TB, m proto.Message) []byte {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func slicesClone(b []byte) []byte { return append([]byte(nil), b...) }

// sameDecoding: decoding in place gives what decoding gives, message or
// refusal, with strings of least bytes and more taken in place.
func sameDecoding(t *testing.T, b []byte, newMsg func() proto.Message, least int) {
	t.Helper()
	d := newRequestDecoder(64)
	want, got := newMsg(), newMsg()
	wantErr := d.decodeBytes(slicesClone(b), want)
	gotErr := d.decodeInPlace(slicesClone(b), got, least)
	if (wantErr == nil) != (gotErr == nil) || wantErr != nil && *wantErr != *gotErr || !proto.Equal(want, got) {
		t.Fatalf("in place: %v, %.200v; decoded: %v, %.200v", gotErr, got, wantErr, want)
	}
}

func TestDecodeLarge(t *testing.T) {
	for name, b := range largeWire(t) {
		t.Run(name, func(t *testing.T) {
			newMsg := func() proto.Message { return new(toolguardv1.ValidateToolCallRequest) }
			if name == "execute write" {
				newMsg = func() proto.Message { return new(toolguardv1.ExecuteWriteRequest) }
			}
			sameDecoding(t, b, newMsg, aliasMinBytes)
		})
	}
}

// TestDecodeLargeInPlace: a large arguments_text is a view of the bytes
// decoded, not a copy; a large string in a map is a copy.
func TestDecodeLargeInPlace(t *testing.T) {
	wire := largeWire(t)
	for _, tt := range []struct {
		name    string
		inPlace bool
		value   func(*toolguardv1.ValidateToolCallRequest) string
	}{
		{"arguments_text", true, func(r *toolguardv1.ValidateToolCallRequest) string { return r.GetCall().GetArgumentsText() }},
		{"xml_block", true, func(r *toolguardv1.ValidateToolCallRequest) string { return r.GetCall().GetXmlBlock() }},
		{"in a map", false, func(r *toolguardv1.ValidateToolCallRequest) string {
			return r.GetCall().GetParams().GetValues()["content"]
		}},
	} {
		b := slicesClone(wire[tt.name])
		var req toolguardv1.ValidateToolCallRequest
		if err := newRequestDecoder(64).decodeLarge(b, &req); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		s := tt.value(&req)
		start, p := uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(unsafe.Pointer(unsafe.StringData(s)))
		if inPlace := p >= start && p < start+uintptr(len(b)); len(s) < aliasMinBytes || inPlace != tt.inPlace {
			t.Errorf("%s: %d bytes, in place %v, want %v", tt.name, len(s), inPlace, tt.inPlace)
		}
	}
}

// FuzzDecodeInPlace: on any bytes, with any string taken in place, the
// decoding is protobuf's.
func FuzzDecodeInPlace(f *testing.F) {
	for _, b := range largeWire(f) {
		if len(b) < 4096 {
			f.Add(b, uint8(1))
		}
	}
	f.Add(mustMarshal(f, &toolguardv1.ValidateToolCallRequest{Context: &toolguardv1.RequestContext{SessionId: "s"},
		Call: &toolguardv1.ToolCall{Name: "n", Id: "i", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: "{'a': 1}"}}}), uint8(2))
	f.Add(mustMarshal(f, &toolguardv1.ValidateToolCallRequest{Call: &toolguardv1.ToolCall{Arguments: &toolguardv1.ToolCall_XmlBlock{XmlBlock: "<a>é</a>"}}}), uint8(1))
	f.Fuzz(func(t *testing.T, b []byte, least uint8) {
		sameDecoding(t, b, func() proto.Message { return new(toolguardv1.ValidateToolCallRequest) }, int(least)+1)
	})
}

// TestShouldCollect: a request is collected after when it is large, and
// large beside the live heap.
func TestShouldCollect(t *testing.T) {
	for _, tt := range []struct {
		size    int
		live    uint64
		collect bool
	}{
		{16 << 20, 8 << 20, true},
		{16 << 20, 64 << 20, true},
		{16 << 20, 65 << 20, false},
		{collectMinBytes - 1, 1 << 20, false},
		{collectMinBytes, 1 << 20, true},
		{100 << 10, 0, false},
	} {
		if got := shouldCollect(tt.size, tt.live); got != tt.collect {
			t.Errorf("shouldCollect(%d, %d) = %v, want %v", tt.size, tt.live, got, tt.collect)
		}
	}
}
