package service_test

import (
	"context"
	"slices"
	"testing"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/service"
	"github.com/toolguard/toolguard/session/redistest"
)

// TestReplicasShareRedisSessions runs two servers (two replicas) on one
// Redis: a session's mistakes count together whichever replica each call
// reaches, and either replica reads and resets the same session.
func TestReplicasShareRedisSessions(t *testing.T) {
	srv := redistest.Start(t, redistest.Options{Password: "replica-pw"})
	cfg := service.Config{Config: guard.Config{SessionStore: guard.SessionStoreRedis, RedisURL: srv.URL(), RedisKeyPrefix: "replicas:"}}
	a, b := startClient(t, cfg), startClient(t, cfg)
	ctx := context.Background()
	bad := textCall("write_to_file", `{"path":"a.py"}`)

	for i, c := range []toolguardv1.ToolGuardServiceClient{a, b, a} {
		v := validate(t, c, "shared", bad)
		m := v.GetMistakes()
		if m.GetConsecutive() != uint32(i+1) || m.GetNotCounted() {
			t.Fatalf("call %d: mistakes %v, want %d counted", i, m, i+1)
		}
		// The third identical call is a repeat although each replica saw
		// the call at most twice.
		if want := i == 2; slices.Contains(violationCodes(v), "REPEATED_CALL:") != want || m.GetLimitReached() != want {
			t.Fatalf("call %d: violations %v, limit reached %v", i, violationCodes(v), m.GetLimitReached())
		}
	}
	got, err := b.GetSession(ctx, &toolguardv1.GetSessionRequest{SessionId: "shared"})
	if err != nil || !got.GetSession().GetExists() || got.GetSession().GetMistakes().GetConsecutive() != 3 {
		t.Fatalf("GetSession on the other replica = %v, %v; want 3 mistakes", got, err)
	}
	// Another session is apart.
	if v := validate(t, b, "other", bad); v.GetMistakes().GetConsecutive() != 1 {
		t.Fatalf("other session: %v", v.GetMistakes())
	}

	// A reset on one replica is seen by the other.
	if _, err := a.ResetSession(ctx, &toolguardv1.ResetSessionRequest{SessionId: "shared"}); err != nil {
		t.Fatal(err)
	}
	got, err = b.GetSession(ctx, &toolguardv1.GetSessionRequest{SessionId: "shared"})
	if err != nil || got.GetSession().GetExists() || got.GetSession().GetMistakes().GetConsecutive() != 0 {
		t.Fatalf("GetSession after a reset on the other replica = %v, %v", got, err)
	}
	validate(t, b, "shared", bad)
	if v := validate(t, a, "shared", bad); v.GetMistakes().GetConsecutive() != 2 {
		t.Fatalf("after the reset: %v, want 2", v.GetMistakes())
	}
	// A usable call on either replica resets the count for both.
	if v := validate(t, b, "shared", textCall("write_to_file", `{"path":"a.py","content":"x"}`)); !v.GetOk() || v.GetMistakes().GetConsecutive() != 0 {
		t.Fatalf("usable call: ok=%v %v", v.GetOk(), v.GetMistakes())
	}
	if got, _ := a.GetSession(ctx, &toolguardv1.GetSessionRequest{SessionId: "shared"}); got.GetSession().GetMistakes().GetConsecutive() != 0 {
		t.Fatalf("GetSession after the usable call: %v", got)
	}
}

// TestMemoryReplicasCountApart is the contrast: with the default memory
// store each replica counts only the calls it sees.
func TestMemoryReplicasCountApart(t *testing.T) {
	a, b := startClient(t, service.Config{}), startClient(t, service.Config{})
	bad := textCall("write_to_file", `{"path":"a.py"}`)
	validate(t, a, "s", bad)
	if v := validate(t, b, "s", bad); v.GetMistakes().GetConsecutive() != 1 {
		t.Fatalf("second replica: %v, want its own count of 1", v.GetMistakes())
	}
}
