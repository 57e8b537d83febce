package service

import (
	"fmt"
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/service/protoapi"
)

// structShapes build a Struct nesting levels deep (structDeeper's count)
// in three shapes, each ending in a string.
var structShapes = map[string]func(levels int) *structpb.Struct{
	"objects": func(levels int) *structpb.Struct {
		v := structpb.NewStringValue("x")
		for range levels {
			v = structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{"a": v}})
		}
		return v.GetStructValue()
	},
	"lists": func(levels int) *structpb.Struct {
		v := structpb.NewStringValue("x")
		for range levels - 1 {
			v = structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{v}})
		}
		return &structpb.Struct{Fields: map[string]*structpb.Value{"a": v}}
	},
	"mixed": func(levels int) *structpb.Struct {
		v := structpb.NewStringValue("x")
		for i := range levels - 1 {
			if i%2 == 0 {
				v = structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{v}})
			} else {
				v = structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{"a": v}})
			}
		}
		return &structpb.Struct{Fields: map[string]*structpb.Value{"a": v}}
	},
}

// decodeBytes decodes b into m as the server does.
func decodeBytes(d requestDecoder, b []byte, m proto.Message) *protoapi.FieldError {
	return d.decode(&wireMessage{data: mem.BufferSlice{mem.SliceBuffer(b)}}, m)
}

// TestDecoderDepth holds the decoder's recursion limit to MaxJSONDepth:
// every Struct the limit admits decodes, in the deepest place a request
// has one; what the decoder refuses is refused as JSON_TOO_DEEP at the
// field; and its walk finds a fault exactly where protobuf fails.
func TestDecoderDepth(t *testing.T) {
	const maxDepth = 16
	dec := newRequestDecoder(maxDepth)
	requests := map[string]func(s *structpb.Struct) (proto.Message, string){
		"ValidateToolCall": func(s *structpb.Struct) (proto.Message, string) {
			return &toolguardv1.ValidateToolCallRequest{Tools: []*toolguardv1.ToolDefinition{{Name: "t", Parameters: s}}}, "tools[0].parameters"
		},
		"stream start": func(s *structpb.Struct) (proto.Message, string) {
			return &toolguardv1.StreamToolCallsRequest{Frame: &toolguardv1.StreamToolCallsRequest_Start{Start: &toolguardv1.StreamStart{
				Tools: []*toolguardv1.ToolDefinition{{Name: "t"}, {Name: "u", Parameters: s}}}}}, "start.tools[1].parameters"
		},
	}
	for reqName, request := range requests {
		for shapeName, shape := range structShapes {
			var refused int
			for levels := 1; levels <= 3*maxDepth; levels++ {
				name := fmt.Sprintf("%s %s %d", reqName, shapeName, levels)
				s := shape(levels)
				admitted := !protoapi.StructDeeper(s, maxDepth)
				if admitted != (levels <= maxDepth) {
					t.Fatalf("%s: structDeeper disagrees with the shape's depth", name)
				}
				req, field := request(s)
				b, err := proto.Marshal(req)
				if err != nil {
					t.Fatal(err)
				}
				into := req.ProtoReflect().New().Interface()
				fe := decodeBytes(dec, b, into)
				if fe == nil {
					continue
				}
				refused++
				if admitted || fe.Reason != "JSON_TOO_DEEP" || fe.Field != field {
					t.Fatalf("%s: refused with %+v (admitted %v); want JSON_TOO_DEEP at %s, and only past the limit", name, fe, admitted, field)
				}
				if proto.Size(into) != 0 {
					t.Fatalf("%s: a refused request is left partly decoded", name)
				}
			}
			if refused == 0 {
				t.Errorf("%s %s: the decoder refused no depth up to %d levels", reqName, shapeName, 3*maxDepth)
			}
		}
	}

	// The walk finds a depth fault exactly when protobuf's limit is hit.
	for levels := 1; levels <= 40; levels++ {
		b, _ := proto.Marshal(&toolguardv1.ValidateToolCallRequest{Tools: []*toolguardv1.ToolDefinition{{Parameters: structShapes["mixed"](levels)}}})
		for limit := 1; limit <= 80; limit++ {
			err := proto.UnmarshalOptions{RecursionLimit: limit}.Unmarshal(b, &toolguardv1.ValidateToolCallRequest{})
			f := wireWalk{limit: limit}.message(b, (&toolguardv1.ValidateToolCallRequest{}).ProtoReflect().Descriptor(), wirePath{}, 1)
			if (err != nil) != (f != nil) || f != nil && f.kind != faultDepth {
				t.Fatalf("%d levels, recursion limit %d: protobuf says %v, the walk %+v", levels, limit, err, f)
			}
		}
	}
}

// TestDecoderMessageTooDeep: with a MaxJSONDepth the recursion limit cannot
// follow, protobuf's own limit refuses, as MESSAGE_TOO_DEEP.
func TestDecoderMessageTooDeep(t *testing.T) {
	dec := newRequestDecoder(5000)
	b, err := proto.Marshal(&toolguardv1.ValidateToolCallRequest{Tools: []*toolguardv1.ToolDefinition{{Name: "t", Parameters: structShapes["objects"](5000)}}})
	if err != nil {
		t.Fatal(err)
	}
	fe := decodeBytes(dec, b, &toolguardv1.ValidateToolCallRequest{})
	if fe == nil || fe.Reason != "MESSAGE_TOO_DEEP" || fe.Field != "tools[0].parameters" {
		t.Fatalf("got %+v, want MESSAGE_TOO_DEEP at tools[0].parameters", fe)
	}
}
