package service_test

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/service"
	"github.com/toolguard/toolguard/service/servicetest"
)

// TestLargeRequestRefusedWithItsField: a large request, decoded only once
// the chain and the unary memory budget let it in, is still refused with
// the reason and field of what does not decode, and a well-formed one of
// each size is answered.
func TestLargeRequestRefusedWithItsField(t *testing.T) {
	conn, _ := servicetest.Start(t, service.Config{})
	for _, size := range []int{16 << 10, 64 << 10, 1 << 20} { // charged; decoded in place from 64 KiB
		filler := strings.Repeat("x", size)
		bad := &toolguardv1.ValidateToolCallRequest{Context: ctxWith("s"),
			Call: textCall("Write", `{"file_path":"a.txt","content":"`+filler+badMark+`"}`)}
		if proto.Size(bad) < size {
			t.Fatalf("request of %d bytes, want %d", proto.Size(bad), size)
		}
		wantFieldRefusal(t, invokeRaw(conn, "ValidateToolCall", notUTF8(t, bad), &toolguardv1.ValidateToolCallResponse{}), "INVALID_UTF8", "call.arguments_text")

		good := &toolguardv1.ValidateToolCallRequest{Context: ctxWith("s"), Call: textCall("Write", `{"file_path":"a.txt","content":"`+filler+`"}`)}
		resp, err := toolguardv1.NewToolGuardServiceClient(conn).ValidateToolCall(t.Context(), good)
		if err != nil || !resp.GetVerdict().GetOk() {
			t.Fatalf("a well-formed request of %d bytes: %v, %v", size, err, resp.GetVerdict().GetViolations())
		}
	}
}
