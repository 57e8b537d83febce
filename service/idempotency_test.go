package service_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/service"
	"github.com/toolguard/toolguard/session/redistest"
)

// TestIdempotencyKey over loopback: a retried ExecuteEdit and ExecuteWrite
// with the same key get the first answer and change nothing, on the same
// server (memory) and on another replica sharing Redis; the same key with
// another call is INVALID_ARGUMENT IDEMPOTENCY_KEY_REUSED.
func TestIdempotencyKey(t *testing.T) {
	srv := redistest.Start(t)
	shared := t.TempDir()
	redisCfg := service.Config{Config: guard.Config{SessionStore: guard.SessionStoreRedis, RedisURL: srv.URL(),
		RedisKeyPrefix: "idem:", Workspace: shared}}
	mem, memDir := startWorkspace(t, service.Config{})
	type servers struct {
		name         string
		first, retry toolguardv1.ToolGuardServiceClient
		folder       string
	}
	tests := []servers{
		{"memory, one server", mem, mem, memDir},
		{"redis, two replicas", startClient(t, redisCfg), startClient(t, redisCfg), shared},
	}
	ctx := context.Background()
	rc := &toolguardv1.RequestContext{SessionId: "retries"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(tt.folder, "log.txt")
			if err := os.WriteFile(path, []byte("start\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			edit := func(c toolguardv1.ToolGuardServiceClient, key, line string) (*toolguardv1.ExecuteEditResponse, error) {
				return c.ExecuteEdit(ctx, &toolguardv1.ExecuteEditRequest{Context: rc, IdempotencyKey: key,
					Call: textCall("edit", `{"path":"log.txt","old_text":"start\n","new_text":"start\n`+line+`\n"}`)})
			}
			first, err := edit(tt.first, "e1", "one")
			if err != nil || !first.GetApplied() {
				t.Fatalf("first edit: %v, %v", first, err)
			}
			again, err := edit(tt.retry, "e1", "one")
			if err != nil || !proto.Equal(first, again) {
				t.Fatalf("retried edit: %v, %v; want the first answer %v", again, err, first)
			}
			_, err = edit(tt.retry, "e1", "two")
			wantRefusal(t, "same key, another call", err, codes.InvalidArgument, "IDEMPOTENCY_KEY_REUSED")
			write := &toolguardv1.ExecuteWriteRequest{Context: rc, IdempotencyKey: "w1",
				Call: textCall("write_to_file", `{"path":"new.txt","content":"x\n"}`)}
			w1, err := tt.first.ExecuteWrite(ctx, write)
			if err != nil || w1.GetChange().GetKind() != toolguardv1.FileChangeKind_FILE_CHANGE_KIND_CREATED {
				t.Fatalf("first write: %v, %v", w1, err)
			}
			w2, err := tt.retry.ExecuteWrite(ctx, write)
			if err != nil || !proto.Equal(w1, w2) {
				t.Fatalf("retried write: %v, %v; want the first answer (created) %v", w2, err, w1)
			}
			if got := readFile(t, path); got != "start\none\n" {
				t.Fatalf("file %q: the edit applied more than once", got)
			}
			// Without a key every call runs.
			if _, err := edit(tt.retry, "", "three"); err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, path); got != "start\nthree\none\n" {
				t.Fatalf("file %q", got)
			}
		})
	}
}

// TestStreamIdempotencyKey over loopback: a stream executing on completion,
// sent again with the same key, executes nothing again: ALREADY_EXECUTED.
func TestStreamIdempotencyKey(t *testing.T) {
	c, dir := startWorkspace(t, service.Config{})
	path := filepath.Join(dir, "log.txt")
	if err := os.WriteFile(path, []byte("start\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	frames := []*toolguardv1.StreamToolCallsRequest{
		{Frame: &toolguardv1.StreamToolCallsRequest_Start{Start: &toolguardv1.StreamStart{
			Context: &toolguardv1.RequestContext{SessionId: "s"}, Format: toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS,
			Options: &toolguardv1.StreamOptions{ExecuteOnComplete: true, IdempotencyKey: "stream-1"}}}},
		{Frame: &toolguardv1.StreamToolCallsRequest_Delta{Delta: &toolguardv1.StreamDelta{
			Text: "<edit><path>log.txt</path><old_text>start\n</old_text><new_text>start\nline\n</new_text></edit>\n"}}},
		{Frame: &toolguardv1.StreamToolCallsRequest_End{End: &toolguardv1.StreamEnd{FinishReason: "stop"}}},
	}
	for i, want := range []string{"", "ALREADY_EXECUTED"} {
		evs, err := streamAs(context.Background(), c, frames...)
		if err != nil {
			t.Fatal(err)
		}
		var codes []string
		for _, ev := range evs {
			if e := ev.GetError(); e != nil {
				codes = append(codes, e.GetCode())
			}
		}
		if (want == "" && len(codes) != 0) || (want != "" && (len(codes) != 1 || codes[0] != want)) {
			t.Fatalf("stream %d: error events %v, want %q", i, codes, want)
		}
		if got := readFile(t, path); got != "start\nline\n" {
			t.Fatalf("stream %d: file %q, want the edit applied once", i, got)
		}
	}
}
