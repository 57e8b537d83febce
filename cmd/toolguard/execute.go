package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"google.golang.org/protobuf/proto"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/service/protoapi"
)

// runWrite mirrors ExecuteWrite offline.
func runWrite(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runExecute("write", args, stdin, stdout, stderr)
}

// runEdit mirrors ExecuteEdit offline.
func runEdit(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runExecute("edit", args, stdin, stdout, stderr)
}

// runExecute runs one call on a workspace directory. Exit status: 0 when the
// call was usable and carried out (or would be), 1 when not, 2 for a bad
// command line, input or workspace.
func runExecute(kind string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg := guard.DefaultConfig()
	fs := newFlagSet(kind, fmt.Sprintf("Usage: toolguard %s [--workspace DIR] --tool NAME [flags] < arguments\n\n", kind), stderr)
	fs.StringVar(&cfg.Workspace, "workspace", ".", "workspace `directory` (no variable sets it: TOOLGUARD_WORKSPACE is serve's)")
	tool := fs.String("tool", "", "tool name as the model wrote it (may be empty for --form xml)")
	model := fs.String("model", "", "model id, selects model-specific fixes")
	form := fs.String("form", "json", "form of stdin: json, params or xml")
	bindSetting(fs, &cfg, "agent-root")
	// The server's deny list and lock directory from serve's variables, so an
	// offline call gets the server's policy and waits for the servers' edits.
	// The syntax check's mode and bounds likewise.
	withEnv := []setting[guard.Config]{coreSetting("deny"), coreSetting("lock-dir"), coreSetting("lock-timeout"),
		coreSetting("syntax-check"), coreSetting("syntax-check-max-bytes"), coreSetting("syntax-check-timeout"),
		coreSetting("syntax-check-max-memory")}
	bindSettings(fs, withEnv, &cfg)
	sha := fs.String("expected-sha256", "", "hex SHA-256 the file must still have")
	dryRun := fs.Bool("dry-run", false, "show the result and the diff, write nothing")
	partial := fs.Bool("partial", false, "apply the edits that can be applied (edit only)")
	if err := applyEnv(withEnv, &cfg, os.LookupEnv); err != nil {
		return fail(stderr, kind, 2, err)
	}
	input, code, ok := commandInput(fs, args, stdin, stderr)
	if !ok {
		return code
	}
	call, err := callFromInput(*tool, *form, input)
	if err != nil {
		return fail(stderr, kind, 2, err)
	}
	g, cleanup, err := guard.New(cfg, guard.Options{})
	if err != nil {
		return fail(stderr, kind, 2, err)
	}
	defer func() { _ = cleanup() }()
	req := guard.ExecuteRequest{
		ValidateRequest: guard.ValidateRequest{SessionID: "cli", ModelID: *model, Call: call},
		ExpectedSHA256:  *sha, DryRun: *dryRun, Partial: *partial,
	}
	var ex *guard.Execution
	if kind == "write" {
		ex, err = g.ExecuteWrite(context.Background(), req)
	} else {
		ex, err = g.ExecuteEdit(context.Background(), req)
	}
	if err != nil {
		return guardFailure(stderr, kind, err)
	}
	pv, err := protoapi.VerdictToProto(ex.Verdict, "")
	if err != nil {
		return fail(stderr, kind, 2, err)
	}
	var resp proto.Message
	if kind == "write" {
		resp = protoapi.ExecutionToWriteResponse(pv, ex)
	} else {
		resp = protoapi.ExecutionToEditResponse(pv, ex)
	}
	if err := printProto(stdout, resp); err != nil {
		return fail(stderr, kind, 2, err)
	}
	if !ex.OK() {
		return 1
	}
	return 0
}
