package bench

import (
	"context"
	"testing"

	testgrpc "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/protobuf/proto"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/service"
	"github.com/toolguard/toolguard/service/servicetest"
)

// BenchmarkDecodeAnswer is what a Go caller pays to decode
// BenchmarkServerOverhead's ValidateToolCall answer (2.2 KB: the arguments
// twice, as the Struct and as arguments_json, five repairs), against the
// echo's answer of as many bytes in one bytes field, and against the same
// answer without each form of the arguments: what each costs the caller.
//
//	go test -run '^$' -bench DecodeAnswer -benchmem ./bench/
func BenchmarkDecodeAnswer(b *testing.B) {
	conn, _ := servicetest.Start(b, service.Config{LogLevel: "error"})
	answer, err := toolguardv1.NewToolGuardServiceClient(conn).ValidateToolCall(context.Background(), brokenWrite(0, 0))
	if err != nil || !answer.GetVerdict().GetOk() {
		b.Fatalf("the benchmark call is not usable: %v %v", answer, err)
	}
	noStruct := proto.CloneOf(answer)
	noStruct.Verdict.Arguments = nil
	noJSON := proto.CloneOf(answer)
	noJSON.Verdict.ArgumentsJson = ""
	echo := &testgrpc.SimpleResponse{Payload: &testgrpc.Payload{Body: make([]byte, proto.Size(answer))}}
	for _, side := range []struct {
		name string
		msg  proto.Message
		into func() proto.Message
	}{
		{"answer", answer, func() proto.Message { return new(toolguardv1.ValidateToolCallResponse) }},
		{"answer_without_struct", noStruct, func() proto.Message { return new(toolguardv1.ValidateToolCallResponse) }},
		{"answer_without_arguments_json", noJSON, func() proto.Message { return new(toolguardv1.ValidateToolCallResponse) }},
		{"echo", echo, func() proto.Message { return new(testgrpc.SimpleResponse) }},
	} {
		wire, err := proto.Marshal(side.msg)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(side.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(wire)))
			for b.Loop() {
				if err := proto.Unmarshal(wire, side.into()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
