package service

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
)

// TestEditOfNonUTF8File edits a Latin-1 file over gRPC. The diff and the
// hints quote the file, and a proto string cannot hold its bytes: the edit
// is made all the same, so its answer arrives, those bytes as U+FFFD, and
// the server warns; the file keeps its own bytes.
func TestEditOfNonUTF8File(t *testing.T) {
	cfg := testConfig(t)
	ts := startTestServer(t, cfg)
	c := toolguardv1.NewToolGuardServiceClient(ts.conn)
	file := filepath.Join(cfg.Workspace, "latin1.txt")
	tests := []struct {
		name       string
		edit       map[string]string
		applied    bool
		wantFile   string
		wantInDiff string
	}{
		{"applied", map[string]string{"old_text": "line two", "new_text": "line 2"}, true, "caf\xe9 au lait\nline 2\n", " caf\uFFFD au lait"},
		{"not found, the hint quotes the file", map[string]string{"old_text": "café au lait", "new_text": "tea"}, false, "caf\xe9 au lait\nline two\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.WriteFile(file, []byte("caf\xe9 au lait\nline two\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			tt.edit["path"] = "latin1.txt"
			resp, err := c.ExecuteEdit(testContext(t), &toolguardv1.ExecuteEditRequest{Context: &toolguardv1.RequestContext{SessionId: "s"},
				Call: &toolguardv1.ToolCall{Name: "edit", Arguments: &toolguardv1.ToolCall_Params{Params: &toolguardv1.StringParams{Values: tt.edit}}}})
			if err != nil {
				t.Fatalf("ExecuteEdit: %v", err)
			}
			if resp.GetApplied() != tt.applied || !strings.Contains(resp.GetDiff(), tt.wantInDiff) {
				t.Fatalf("applied %v, diff %q; want applied %v and %q in the diff", resp.GetApplied(), resp.GetDiff(), tt.applied, tt.wantInDiff)
			}
			if b, err := os.ReadFile(file); err != nil || string(b) != tt.wantFile {
				t.Fatalf("file = %q, %v; want %q", b, err, tt.wantFile)
			}
		})
	}
	warned := ts.logs.FilterMessage("response strings were not valid UTF-8: invalid bytes sent as U+FFFD").All()
	if len(warned) == 0 || warned[0].Level != zapcore.WarnLevel {
		t.Fatalf("no warning of the response sent with U+FFFD: %v", warned)
	}
	if fields, _ := warned[0].ContextMap()["fields"].([]any); !slices.Contains(fields, any("diff")) {
		t.Errorf("warning names fields %v, want the diff among them", warned[0].ContextMap()["fields"])
	}
}

// TestToValidUTF8 covers every place a string can be: a field, a list, a
// map value and key, a Struct, a nested message; the original is left
// alone, and a message with nothing to fix still fails to marshal.
func TestToValidUTF8(t *testing.T) {
	args, err := structpb.NewStruct(map[string]any{"ok": "fine"})
	if err != nil {
		t.Fatal(err)
	}
	args.Fields["k\xff"] = structpb.NewStringValue("v\xfe")
	resp := &toolguardv1.ExecuteEditResponse{
		Diff:    "a\xffb",
		Verdict: &toolguardv1.Verdict{Arguments: args, Violations: []*toolguardv1.Violation{{Message: "fine"}, {Message: "\xc3"}}},
		Edits:   []*toolguardv1.EditResult{{Hint: "é\xe9"}},
	}
	params := &toolguardv1.ToolCall{Arguments: &toolguardv1.ToolCall_Params{Params: &toolguardv1.StringParams{Values: map[string]string{"p": "\xff", "\xfe": "x"}}}}
	core, logs := observer.New(zapcore.DebugLevel)
	codec := newWireCodec(zap.New(core))
	for _, m := range []proto.Message{resp, params} {
		before := proto.Clone(m)
		data, err := codec.Marshal(m)
		if err != nil {
			t.Fatalf("Marshal(%T): %v", m, err)
		}
		if !proto.Equal(m, before) {
			t.Fatalf("Marshal changed the %T it was given", m)
		}
		got := m.ProtoReflect().New().Interface()
		if err := proto.Unmarshal(data.Materialize(), got); err != nil {
			t.Fatalf("the %T sent does not decode: %v", m, err)
		}
	}
	var sent toolguardv1.ExecuteEditResponse
	data, _ := codec.Marshal(resp)
	if err := proto.Unmarshal(data.Materialize(), &sent); err != nil {
		t.Fatal(err)
	}
	if sent.GetDiff() != "a\uFFFDb" || sent.GetEdits()[0].GetHint() != "é\uFFFD" || sent.GetVerdict().GetViolations()[1].GetMessage() != "\uFFFD" ||
		sent.GetVerdict().GetArguments().GetFields()["k\uFFFD"].GetStringValue() != "v\uFFFD" || sent.GetVerdict().GetArguments().GetFields()["ok"].GetStringValue() != "fine" {
		t.Fatalf("sent %v", &sent)
	}
	if logs.Len() == 0 {
		t.Fatal("no warning")
	}
}

// TestCodecPassesRequestsUndecoded: a wireMessage receives the bytes as
// they came, anything else is decoded as by the proto codec.
func TestCodecPassesRequestsUndecoded(t *testing.T) {
	codec := newWireCodec(zap.NewNop())
	want := &toolguardv1.GetSessionRequest{SessionId: "s"}
	data, err := codec.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	w := &wireMessage{}
	if err := codec.Unmarshal(data, w); err != nil {
		t.Fatal(err)
	}
	var got toolguardv1.GetSessionRequest
	if fe := newRequestDecoder(64).decode(w, &got); fe != nil || !proto.Equal(&got, want) {
		t.Fatalf("decoded %v, %v; want %v", &got, fe, want)
	}
	w.free()
	got.Reset()
	if err := codec.Unmarshal(data, &got); err != nil || !proto.Equal(&got, want) {
		t.Fatalf("Unmarshal = %v, %v", &got, err)
	}
}
