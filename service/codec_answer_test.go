package service

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"go.uber.org/zap"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/service/protoapi"
	"github.com/toolguard/toolguard/session"
)

// guardVerdict is a verdict with every field set, and args as its
// arguments.
func guardVerdict(args map[string]any) *guard.Verdict {
	return &guard.Verdict{
		Result: &repair.Result{ToolName: "write_to_file", Form: repair.FormText, Args: args,
			Repairs:    []repair.Repair{{Code: "ALIAS_RENAMED", Param: "path", Detail: "file_path → path"}, {Code: "PYTHON_LITERAL"}, {}},
			Violations: []repair.Violation{{Code: "MISSING_REQUIRED", Param: "content", Message: "m"}}, ViolationsOmitted: 4},
		ArgumentsJSON: []byte(`{"path":"a.go"}`), Feedback: "f",
		Mistakes: guard.MistakeState{Consecutive: 2, Limit: 3, LimitReached: true, NotCounted: true},
		Elided:   []guard.Elision{{Field: "content", Size: 9, SHA256: "ab"}, {}},
	}
}

// answerAsProto fails unless v's answer, as the codec writes it, reads
// back as VerdictToProto's message; false when the codec does not write
// it, having checked that the codec still answers as before.
func answerAsProto(t *testing.T, name string, v *guard.Verdict, callID string) bool {
	t.Helper()
	pv, err := protoapi.VerdictToProto(v, callID)
	a, ok := newVerdictAnswer(v, callID)
	if !ok {
		if err == nil {
			data, err := newWireCodec(zap.NewNop()).Marshal(&toolguardv1.ValidateToolCallResponse{Verdict: pv})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			data.Free()
		}
		return false
	}
	if err != nil {
		t.Fatalf("%s: written, but VerdictToProto fails: %v", name, err)
	}
	want := &toolguardv1.ValidateToolCallResponse{Verdict: pv}
	data, err := newWireCodec(zap.NewNop()).Marshal(a)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer data.Free()
	sameWire(t, name, data.Materialize(), want)
	return true
}

// TestVerdictAnswerAsProto: a verdict with flat arguments is written by the
// codec and reads back as protobuf-go's encoding of VerdictToProto's
// message, from small to pooled sizes, each field set or not. Nested
// arguments, values VerdictToProto refuses or converts otherwise, strings
// that are not UTF-8 anywhere, and omitted repairs take the usual path.
func TestVerdictAnswerAsProto(t *testing.T) {
	big := strings.Repeat("def handler(event):\n    return {'status': 200}\n", 3000)
	flat := map[string]map[string]any{
		"strings":     {"path": "src/a.py", "content": "x = 1\n", "": ""},
		"every kind":  {"s": "é 其 😀", "n": json.Number("-0.5"), "b": true, "f": false, "z": nil, "zero": json.Number("0"), "ключ": "v"},
		"odd numbers": {"nan": json.Number("NaN"), "inf": json.Number("-Inf"), "neg0": json.Number("-0"), "big": json.Number("1e308"), "tiny": json.Number("5e-324"), "int": json.Number("12345678901234567890")},
		"empty":       {},
		"none":        nil,
		"pooled":      {"path": "a.py", "content": big, strings.Repeat("k", 300): big[:200]},
	}
	for name, args := range flat {
		for i, v := range []*guard.Verdict{guardVerdict(args), {Result: &repair.Result{Args: args}}, {Result: &repair.Result{}}} {
			for _, callID := range []string{"", "call_1"} {
				if !answerAsProto(t, name, v, callID) {
					t.Fatalf("%s (%d): not written", name, i)
				}
			}
		}
	}
	usual := map[string]*guard.Verdict{
		"nested list":       guardVerdict(map[string]any{"edits": []any{map[string]any{"old": "a"}}}),
		"nested object":     guardVerdict(map[string]any{"a": map[string]any{}}),
		"float64":           guardVerdict(map[string]any{"a": 1.5}),
		"bad number":        guardVerdict(map[string]any{"a": json.Number("1e999")}),
		"empty number":      guardVerdict(map[string]any{"a": json.Number("")}),
		"key not UTF-8":     guardVerdict(map[string]any{"a\xff": "v"}),
		"value not UTF-8":   guardVerdict(map[string]any{"a": "v\xff"}),
		"tool not UTF-8":    guardVerdict(nil),
		"json not UTF-8":    guardVerdict(nil),
		"repair not UTF-8":  guardVerdict(nil),
		"message not UTF-8": guardVerdict(nil),
		"elided not UTF-8":  guardVerdict(nil),
		"repairs omitted":   guardVerdict(nil),
	}
	usual["tool not UTF-8"].ToolName = "\xc3"
	usual["json not UTF-8"].ArgumentsJSON = []byte("\"\xfe\"")
	usual["repair not UTF-8"].Repairs[0].Detail = "\xc3"
	usual["message not UTF-8"].Violations[0].Message = "\xc3"
	usual["elided not UTF-8"].Elided[0].SHA256 = "\xc3"
	usual["repairs omitted"].RepairsOmitted = 3
	for name, v := range usual {
		if answerAsProto(t, name, v, "c") {
			t.Fatalf("%s: written by the codec", name)
		}
		if answerAsProto(t, name+", call id", guardVerdict(map[string]any{"a": "b"}), "\xff") {
			t.Fatalf("%s: written by the codec", name)
		}
	}
}

// FuzzVerdictAnswer: any verdict of flat arguments reads back as protobuf-
// go's encoding of VerdictToProto's message, or takes the usual path when
// a string is not UTF-8 or a number does not convert.
func FuzzVerdictAnswer(f *testing.F) {
	f.Add("path", "src/a.py", "content", "x = 1\n", "1.5", true, "feedback", "c1", uint32(2), 300)
	f.Add("", "", "\xff", "é", "Inf", false, "", "", uint32(0), 0)
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2, num string, b bool, text, callID string, count uint32, size int) {
		v := guardVerdict(map[string]any{k1: v1, k2: v2, k1 + "#n": json.Number(num), k2 + "#b": b, "null": nil})
		v.Feedback, v.ToolName, v.ArgumentsJSON = text, k2, []byte(v2)
		v.Repairs = append(v.Repairs, repair.Repair{Code: k1, Param: text, Detail: v1})
		v.Violations = append(v.Violations, repair.Violation{Code: text, Message: v2})
		v.Mistakes.Consecutive, v.Mistakes.LimitReached, v.ViolationsOmitted = count, b, size
		v.Elided = append(v.Elided, guard.Elision{Field: k1, Size: size, SHA256: text})
		v.Form = repair.Form(count % 5)
		answerAsProto(t, "fuzz", v, callID)
	})
}

// TestServerAnswersAsService: over the network, the server's ValidateToolCall
// answers (written by the codec, or converted) read back as the service
// method's in process, for calls of flat and nested arguments, repaired,
// refused, unknown and counted again.
func TestServerAnswersAsService(t *testing.T) {
	cfg := testConfig(t)
	ts := startTestServer(t, cfg)
	client := toolguardv1.NewToolGuardServiceClient(ts.conn)
	store := session.NewMemory(session.MemoryOptions{})
	t.Cleanup(func() { _ = store.Close() })
	access, err := newAccessControl(cfg)
	if err != nil {
		t.Fatal(err)
	}
	svc, release, err := newToolGuardService(cfg, store, zap.NewNop(), nil, access.streams, access.rates)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = release() })
	calls := []*toolguardv1.ToolCall{
		{Name: "write_to_file", Id: "c1", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: `{"path": "a.py", "content": "x = 1\n"}`}},
		{Name: "Write", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: `{'file_path': 'a.py', 'text': 'x = 1\n',}`}},
		{Name: "write_to_file", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: `{"path": "a.py"}`}},
		{Name: "write_to_file", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: `{"path": "a.py", "content": "x", "n": 1.5, "b": true, "z": null}`}},
		{Name: "replace_in_file", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: `{"path": "a.py", "diff": [{"old": "a"}]}`}},
		{Name: "no_such_tool", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: `{"a": 1}`}},
		{Name: "write_to_file", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: `not json at all`}},
	}
	ctx := testContext(t)
	for round := range 3 { // the same calls again: repeats, counted mistakes
		for i, call := range calls {
			req := &toolguardv1.ValidateToolCallRequest{Context: &toolguardv1.RequestContext{SessionId: fmt.Sprint("s", i)}, Call: call}
			got, err := client.ValidateToolCall(ctx, req)
			if err != nil {
				t.Fatalf("call %d: %v", i, err)
			}
			want, err := svc.ValidateToolCall(ctx, req)
			if err != nil {
				t.Fatalf("call %d in process: %v", i, err)
			}
			data, err := proto.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			sameWire(t, fmt.Sprintf("round %d, call %d", round, i), data, want)
		}
	}
}

// TestConcurrentAnswersKeepTheirArguments: concurrent ValidateToolCalls,
// whose verdicts' encodings are released and reused once their answers are
// written, each get their own arguments back, in both forms.
func TestConcurrentAnswersKeepTheirArguments(t *testing.T) {
	ts := startTestServer(t, testConfig(t))
	client := toolguardv1.NewToolGuardServiceClient(ts.conn)
	ctx := testContext(t)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 40 {
				content := fmt.Sprintf("worker %d, call %d\n%s", w, i, strings.Repeat("y", (w*97+i*31)%1500))
				args, _ := json.Marshal(map[string]string{"path": "a.py", "content": content})
				resp, err := client.ValidateToolCall(ctx, &toolguardv1.ValidateToolCallRequest{
					Context: &toolguardv1.RequestContext{SessionId: fmt.Sprint("w", w)},
					Call:    &toolguardv1.ToolCall{Name: "write_to_file", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: string(args)}},
				})
				if err != nil {
					t.Error(err)
					return
				}
				v := resp.GetVerdict()
				var echoed map[string]string
				if err := json.Unmarshal([]byte(v.GetArgumentsJson()), &echoed); err != nil || echoed["content"] != content ||
					v.GetArguments().GetFields()["content"].GetStringValue() != content {
					t.Errorf("worker %d, call %d: got %.60q and %.60q (%v)", w, i, v.GetArgumentsJson(), v.GetArguments().GetFields()["content"].GetStringValue(), err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkVerdictAnswer answers the server benchmark's call (a ~1 KB
// file's write_to_file verdict) both ways, side by side: converted by
// VerdictToProto and encoded by the codec's protobuf path (convert), and
// sized and written from the guard's verdict (direct).
func BenchmarkVerdictAnswer(b *testing.B) {
	content := "# variant 0\n" + strings.Repeat("def handler(event):\n    return {'status': 200}\n", 19)
	args := map[string]any{"path": "src/handler.py", "content": content}
	argsJSON, err := repair.EncodeArgs(args)
	if err != nil {
		b.Fatal(err)
	}
	v := &guard.Verdict{
		Result: &repair.Result{ToolName: "write_to_file", Form: repair.FormText, Args: args,
			Repairs: []repair.Repair{{Code: "PYTHON_LITERAL", Detail: "read as a Python literal"}, {Code: "ALIAS_RENAMED", Param: "path", Detail: `"file_path" renamed to "path"`},
				{Code: "ALIAS_RENAMED", Param: "content", Detail: `"text" renamed to "content"`}, {Code: "TOOL_ALIAS", Detail: `"Write" is "write_to_file"`}}},
		ArgumentsJSON: argsJSON, Mistakes: guard.MistakeState{Limit: 3},
	}
	codec := newWireCodec(zap.NewNop())
	for _, side := range []string{"convert", "direct"} {
		b.Run(side, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var data mem.BufferSlice
				if side == "direct" {
					// As the codec writes it, without releasing the verdict.
					a, ok := newVerdictAnswer(v, "")
					if !ok {
						b.Fatal("the codec does not write this answer")
					}
					if data, ok = a.marshal(); !ok {
						b.Fatal("not written by the codec")
					}
				} else {
					pv, err := protoapi.VerdictToProto(v, "")
					if err != nil {
						b.Fatal(err)
					}
					if data, err = codec.Marshal(&toolguardv1.ValidateToolCallResponse{Verdict: pv}); err != nil {
						b.Fatal(err)
					}
				}
				data.Free()
			}
		})
	}
}

// TestBinaryLogKeepsMessages: with grpc-go's binary log on, ValidateToolCall
// answers as protobuf messages, which the log records.
func TestBinaryLogKeepsMessages(t *testing.T) {
	impl := &toolGuardService{}
	if sd := answeredService(&toolguardv1.ToolGuardService_ServiceDesc, impl); sd == &toolguardv1.ToolGuardService_ServiceDesc {
		t.Fatal("ValidateToolCall keeps the generated handler without the binary log")
	}
	t.Setenv(binaryLogEnv, "*")
	if sd := answeredService(&toolguardv1.ToolGuardService_ServiceDesc, impl); sd != &toolguardv1.ToolGuardService_ServiceDesc {
		t.Fatal("ValidateToolCall answers with verdictAnswers under the binary log")
	}
}

// TestVerdictAnswerKnowsEveryField: the codec writes an answer's messages
// field by field, so a field added to any of them must be written there
// too (codec_answer.go), or the answer would go without it.
func TestVerdictAnswerKnowsEveryField(t *testing.T) {
	written := map[proto.Message][]protowire.Number{
		&toolguardv1.ValidateToolCallResponse{}: {verdictField},
		&toolguardv1.Verdict{}: {fVerdictOK, fToolName, argumentsField, fArgumentsJSON, fRepairs, fViolations, fFeedback, fMistakes,
			fCallID, fForm, fViolationsOmitted, fElided},
		&toolguardv1.Repair{}:       {fRepairCode, fRepairParam, fRepairDetail},
		&toolguardv1.Violation{}:    {fViolationCode, fViolationParam, fViolationMsg},
		&toolguardv1.Elision{}:      {fElisionField, fElisionSize, fElisionSHA256},
		&toolguardv1.MistakeState{}: {fConsecutive, fLimit, fLimitReached, fNotCounted},
	}
	for m, nums := range written {
		fields := m.ProtoReflect().Descriptor().Fields()
		if fields.Len() != len(nums) {
			t.Errorf("%s has %d fields, the codec writes %d: write the new ones in codec_answer.go", m.ProtoReflect().Descriptor().FullName(), fields.Len(), len(nums))
		}
		for _, n := range nums {
			if fields.ByNumber(n) == nil {
				t.Errorf("%s has no field %d", m.ProtoReflect().Descriptor().FullName(), n)
			}
		}
	}
}
