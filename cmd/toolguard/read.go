package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/service/protoapi"
)

// runRead mirrors ReadFile offline. Exit status: 0 when the file was read, 1
// when the read was refused (the verdict says why), 2 for a bad command line
// (a column past its line's end or inside a character included) or
// workspace.
func runRead(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	cfg := guard.DefaultConfig()
	fs := newFlagSet("read", "Usage: toolguard read [--workspace DIR] --path PATH [--offset N] [--column N] [--limit N | --head N | --tail N] [--line-numbers]\n\n", stderr)
	fs.StringVar(&cfg.Workspace, "workspace", ".", "workspace `directory` (no variable sets it: TOOLGUARD_WORKSPACE is serve's)")
	path := fs.String("path", "", "path of the file, as the model wrote it")
	offset := fs.Uint("offset", 0, "1-based first `line` (0: the first)")
	column := fs.Uint("column", 0, "1-based `byte` of line --offset to start at, to read on in a line longer than one answer: a truncated answer's next_column (0: the first)")
	limit := fs.Uint("limit", 0, "how many `lines` (0: to the end)")
	numbered := fs.Bool("line-numbers", false, `number the lines as "  12 | code"`)
	head, tail := headTailFlags(fs)
	model := fs.String("model", "", "model id")
	bindSetting(fs, &cfg, "agent-root")
	withEnv := []setting[guard.Config]{coreSetting("deny")}
	bindSettings(fs, withEnv, &cfg)
	if err := applyEnv(withEnv, &cfg, os.LookupEnv); err != nil {
		return fail(stderr, "read", 2, err)
	}
	if code, ok := parseCommandFlags(fs, args, stderr); !ok {
		return code
	}
	const maxLine = 1<<31 - 1
	if *offset > maxLine || *limit > maxLine || *column > maxLine || *head > maxLine || *tail > maxLine {
		return fail(stderr, "read", 2, fmt.Errorf("--offset, --column, --limit, --head and --tail must be at most %d", maxLine))
	}
	g, cleanup, err := guard.New(cfg, guard.Options{})
	if err != nil {
		return fail(stderr, "read", 2, err)
	}
	defer func() { _ = cleanup() }()
	r, err := g.ReadFile(context.Background(), guard.ReadRequest{RequestContext: guard.RequestContext{SessionID: "cli", ModelID: *model}, Path: *path,
		Offset: int(*offset), Limit: int(*limit), Column: int(*column), LineNumbers: *numbered, Head: int(*head), Tail: int(*tail)})
	if ce := (*guard.ColumnError)(nil); errors.As(err, &ce) {
		err = fmt.Errorf("--column: %w", err)
	}
	if err != nil {
		return guardFailure(stderr, "read", err)
	}
	pv, err := protoapi.VerdictToProto(r.Verdict, "")
	if err != nil {
		return fail(stderr, "read", 2, err)
	}
	if err := printProto(stdout, protoapi.ReadToProto(pv, r)); err != nil {
		return fail(stderr, "read", 2, err)
	}
	if !r.OK() {
		return 1
	}
	return 0
}
