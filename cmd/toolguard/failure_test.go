package main

import (
	"strings"
	"testing"

	"github.com/toolguard/toolguard/guard/failure"
	"github.com/toolguard/toolguard/guard/failure/failuretest"
)

// TestGuardFailureKinds: every kind of guard error exits 2 (1 is a call
// answered but not usable) with the error on stderr; a full or read-only
// workspace says so in a sentence before the cause.
func TestGuardFailureKinds(t *testing.T) {
	for _, tt := range failuretest.Cases() {
		t.Run(tt.Name, func(t *testing.T) {
			var stderr strings.Builder
			if code := guardFailure(&stderr, "write", tt.Err); code != 2 {
				t.Fatalf("exit %d, want 2", code)
			}
			out := stderr.String()
			if !strings.HasPrefix(out, "toolguard write: ") || !strings.Contains(out, tt.Err.Error()) {
				t.Fatalf("stderr %q", out)
			}
			if f := failure.Classify(tt.Err); f.Kind == failure.Storage && !strings.Contains(out, f.Message) {
				t.Fatalf("stderr %q lacks %q", out, f.Message)
			}
		})
	}
}
