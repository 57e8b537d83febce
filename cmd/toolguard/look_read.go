package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"google.golang.org/protobuf/proto"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/service/protoapi"
)

// pathList is a flag given once per path: paths may hold commas.
type pathList []string

func (p *pathList) String() string     { return fmt.Sprint([]string(*p)) }
func (p *pathList) Set(s string) error { *p = append(*p, s); return nil }

func headTailFlags(fs *flag.FlagSet) (head, tail *uint) {
	head = fs.Uint("head", 0, "return only the first `lines` (0: no bound; not with --tail, --offset or --limit)")
	tail = fs.Uint("tail", 0, "return only the last `lines` (0: no bound)")
	return head, tail
}

// lookCommand is what the offline mirrors of the read-only RPCs share: the
// workspace and policy flags, the guard, the printing and the exit status
// (0: usable, 1: refused, the verdict says why, 2: a bad command line or
// workspace).
type lookCommand struct {
	name  string
	cfg   guard.Config
	fs    *flag.FlagSet
	model *string
}

func newLookCommand(name, usage string, stderr io.Writer) *lookCommand {
	c := &lookCommand{name: name, cfg: guard.DefaultConfig()}
	c.fs = newFlagSet(name, usage, stderr)
	c.fs.StringVar(&c.cfg.Workspace, "workspace", ".", "workspace `directory`")
	c.model = c.fs.String("model", "", "model id")
	bindSetting(c.fs, &c.cfg, "agent-root")
	return c
}

// run parses args, builds the guard and runs look with it.
func (c *lookCommand) run(args []string, stderr, stdout io.Writer, withEnv []setting[guard.Config],
	look func(*guard.Guard, guard.LookContext) (proto.Message, bool, error)) int {
	withEnv = append(withEnv, coreSetting("deny"))
	bindSettings(c.fs, withEnv, &c.cfg)
	if err := applyEnv(withEnv, &c.cfg, os.LookupEnv); err != nil {
		return fail(stderr, c.name, 2, err)
	}
	if code, ok := parseCommandFlags(c.fs, args, stderr); !ok {
		return code
	}
	g, cleanup, err := guard.New(c.cfg, guard.Options{})
	if err != nil {
		return fail(stderr, c.name, 2, err)
	}
	defer func() { _ = cleanup() }()
	msg, ok, err := look(g, guard.LookContext{SessionID: "cli", ModelID: *c.model})
	var fe *protoapi.FieldError
	switch {
	case errors.As(err, &fe):
		return fail(stderr, c.name, 2, err)
	case err != nil:
		return guardFailure(stderr, c.name, err)
	}
	if err := printProto(stdout, msg); err != nil {
		return fail(stderr, c.name, 2, err)
	}
	if !ok {
		return 1
	}
	return 0
}

// runInfo mirrors GetFileInfo offline.
func runInfo(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	c := newLookCommand("info", "Usage: toolguard info --workspace DIR --path PATH [--path PATH ...]\n\n", stderr)
	var paths pathList
	c.fs.Var(&paths, "path", "a `path` to describe, as the model wrote it (repeat for several)")
	return c.run(args, stderr, stdout, nil, func(g *guard.Guard, lc guard.LookContext) (proto.Message, bool, error) {
		if len(paths) == 0 || len(paths) > guard.MaxInfoPaths {
			return nil, false, &protoapi.FieldError{Field: "--path", Description: fmt.Sprintf("give 1 to %d paths", guard.MaxInfoPaths)}
		}
		info, err := g.GetFileInfo(context.Background(), guard.InfoRequest{LookContext: lc, Paths: paths})
		if err != nil {
			return nil, false, err
		}
		pv, err := protoapi.VerdictToProto(info.Verdict, "")
		if err != nil {
			return nil, false, err
		}
		return protoapi.InfoToProto(pv, info), info.OK(), nil
	})
}

// runReadMany mirrors ReadFiles offline.
func runReadMany(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	c := newLookCommand("read-many", "Usage: toolguard read-many --workspace DIR --path PATH [--path PATH ...] [--head N | --tail N] [--line-numbers]\n\n", stderr)
	var paths pathList
	c.fs.Var(&paths, "path", "a `path` to read, as the model wrote it (repeat for several)")
	head, tail := headTailFlags(c.fs)
	numbered := c.fs.Bool("line-numbers", false, `number the lines as "  12 | code"`)
	return c.run(args, stderr, stdout, nil, func(g *guard.Guard, lc guard.LookContext) (proto.Message, bool, error) {
		if len(paths) == 0 || len(paths) > guard.MaxReadFiles {
			return nil, false, &protoapi.FieldError{Field: "--path", Description: fmt.Sprintf("give 1 to %d paths", guard.MaxReadFiles)}
		}
		if *head > 1<<31-1 || *tail > 1<<31-1 {
			return nil, false, &protoapi.FieldError{Field: "--head", Description: "--head and --tail must be at most 2147483647"}
		}
		many, err := g.ReadFiles(context.Background(), guard.ReadFilesRequest{LookContext: lc, Paths: paths, Head: int(*head), Tail: int(*tail), LineNumbers: *numbered})
		if err != nil {
			return nil, false, err
		}
		pv, err := protoapi.VerdictToProto(many.Verdict, "")
		if err != nil {
			return nil, false, err
		}
		return protoapi.ReadFilesToProto(pv, many), many.OK(), nil
	})
}

// runReadMedia mirrors ReadMediaFile offline; the bytes print as base64.
func runReadMedia(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	c := newLookCommand("read-media", "Usage: toolguard read-media --workspace DIR --path PATH [--max-media-bytes N]\n\n", stderr)
	path := c.fs.String("path", "", "path of the file, as the model wrote it")
	return c.run(args, stderr, stdout, []setting[guard.Config]{coreSetting("max-media-bytes")}, func(g *guard.Guard, lc guard.LookContext) (proto.Message, bool, error) {
		m, err := g.ReadMedia(context.Background(), guard.MediaRequest{LookContext: lc, Path: *path})
		if err != nil {
			return nil, false, err
		}
		pv, err := protoapi.VerdictToProto(m.Verdict, "")
		if err != nil {
			return nil, false, err
		}
		return protoapi.MediaToProto(pv, m), m.OK(), nil
	})
}
