package mcp

import (
	"errors"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/toolguard/toolguard/guard/failure"
	"github.com/toolguard/toolguard/guard/failure/failuretest"
)

// TestFailureKinds: each kind of guard error renders as the MCP answer its
// kind calls for. What the model can act on (its call refused, a file
// changed or locked, a full disk, the store down) is an isError result
// saying what to do; the server's faults and a shutdown are JSON-RPC
// errors, a cancelled call is returned as it came.
func TestFailureKinds(t *testing.T) {
	want := map[failure.Kind]struct {
		isError bool   // an isError result, else a protocol error
		text    string // in the result's text or the error
		level   zapcore.Level
		logged  bool
	}{
		failure.Invalid:       {isError: true},
		failure.NotFound:      {isError: true, text: "no workspace to act on"},
		failure.Conflict:      {isError: true, text: "a.go changed while toolguard was working on it; read it again"},
		failure.Locked:        {isError: true, text: "send the call again"},
		failure.Storage:       {isError: true, text: "nothing was written"},
		failure.StoreDegraded: {isError: true, text: "session store cannot be reached; send the call again", level: zapcore.WarnLevel, logged: true},
		failure.Unavailable:   {text: "shutting down"},
		failure.Canceled:      {text: "canceled"},
		failure.Timeout:       {text: "deadline exceeded"},
		failure.Internal:      {text: "toolguard: internal error in write_to_file", level: zapcore.ErrorLevel, logged: true},
	}
	for _, tt := range failuretest.Cases() {
		t.Run(tt.Name, func(t *testing.T) {
			w, ok := want[tt.Kind]
			if tt.Reason == failure.IdempotencyReplyLost {
				w.text = "was not carried out again"
			}
			if !ok {
				t.Fatalf("no expectation for kind %v", tt.Kind)
			}
			core, logs := observer.New(zapcore.DebugLevel)
			s, err := New(nil, Options{Log: zap.New(core)})
			if err != nil {
				t.Fatal(err)
			}
			res, err := s.failure("write_to_file", tt.Err)
			var text string
			switch {
			case w.isError:
				if err != nil || res == nil || !res.IsError || len(res.Content) != 1 {
					t.Fatalf("got %v, %v; want an isError result", res, err)
				}
				text = res.Content[0].(*sdk.TextContent).Text
			default:
				if err == nil || res != nil {
					t.Fatalf("got %v, %v; want a protocol error", res, err)
				}
				text = err.Error()
				if tt.Kind == failure.Canceled || tt.Kind == failure.Timeout {
					if !errors.Is(err, tt.Err) {
						t.Fatalf("error %v is not the call's own", err)
					}
				}
			}
			if !strings.Contains(text, w.text) || text == "" {
				t.Fatalf("answer %q, want it to say %q", text, w.text)
			}
			if tt.Kind != failure.Internal && strings.Contains(text, "internal error") {
				t.Fatalf("answer %q for a %v failure", text, tt.Kind)
			}
			entries := logs.All()
			if !w.logged {
				if len(entries) != 0 {
					t.Fatalf("logged %v", entries)
				}
				return
			}
			if len(entries) != 1 || entries[0].Level != w.level {
				t.Fatalf("logged %v, want one line at %v", entries, w.level)
			}
		})
	}
}
