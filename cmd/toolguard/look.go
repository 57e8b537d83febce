package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"strings"

	"google.golang.org/protobuf/proto"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/service/protoapi"
)

// lookCommand is what the offline mirrors of the look RPCs share: the
// workspace and policy flags, the guard, the printing and the exit status
// (0: answered, 1: refused, the verdict says why, 2: a bad command line or
// workspace).
type lookCommand struct {
	name    string
	cfg     guard.Config
	fs      *flag.FlagSet
	model   *string
	withEnv []setting[guard.Config]
}

// newLookCommand makes the command's flags; withEnv are the core settings
// it takes beside deny, each with its TOOLGUARD_* variable.
func newLookCommand(name, usage string, stderr io.Writer, withEnv ...setting[guard.Config]) *lookCommand {
	c := &lookCommand{name: name, cfg: guard.DefaultConfig(), withEnv: append(withEnv, coreSetting("deny"))}
	c.fs = newFlagSet(name, usage, stderr)
	c.fs.StringVar(&c.cfg.Workspace, "workspace", ".", "workspace `directory` (no variable sets it: TOOLGUARD_WORKSPACE is serve's)")
	c.model = c.fs.String("model", "", "model id")
	bindSetting(c.fs, &c.cfg, "agent-root")
	bindSettings(c.fs, c.withEnv, &c.cfg)
	return c
}

// run parses args, builds the guard, runs look with it and prints its
// response as convert gives it. A FieldError from look is the command
// line's.
func (c *lookCommand) run(args []string, stdout, stderr io.Writer,
	look func(*guard.Guard, guard.RequestContext) (*guard.Look, error), convert func(*toolguardv1.Verdict, *guard.Look) proto.Message) int {
	if err := applyEnv(c.withEnv, &c.cfg, os.LookupEnv); err != nil {
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
	lk, err := look(g, guard.RequestContext{SessionID: "cli", ModelID: *c.model})
	var fe *protoapi.FieldError
	switch {
	case errors.As(err, &fe):
		return fail(stderr, c.name, 2, err)
	case err != nil:
		return guardFailure(stderr, c.name, err)
	}
	pv, err := protoapi.VerdictToProto(lk.Verdict, "")
	if err != nil {
		return fail(stderr, c.name, 2, err)
	}
	if err := printProto(stdout, convert(pv, lk)); err != nil {
		return fail(stderr, c.name, 2, err)
	}
	if !lk.OK() {
		return 1
	}
	return 0
}

// patterns is a repeatable flag: each use adds a pattern.
type patterns []string

func (p *patterns) String() string     { return strings.Join(*p, ",") }
func (p *patterns) Set(s string) error { *p = append(*p, s); return nil }

// treeFlags are what list and find add: the folder, exclusions and
// .gitignore.
type treeFlags struct {
	path      *string
	exclude   patterns
	gitignore *bool
}

func newTreeFlags(fs *flag.FlagSet) *treeFlags {
	tf := &treeFlags{}
	tf.path = fs.String("path", "", "the `folder`, as the model wrote it (default the workspace root)")
	fs.Var(&tf.exclude, "exclude", "glob `pattern` of entries to leave out (repeatable): a name without \"/\", a path below the folder with it")
	tf.gitignore = fs.Bool("gitignore", false, "leave out what the .gitignore files ignore")
	return tf
}

// runList mirrors ListDirectory offline.
func runList(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	c := newLookCommand("list", "Usage: toolguard list [--workspace DIR] [--path FOLDER] [--depth N] [--max-entries N] [--exclude PATTERN]... [--gitignore]\n\n", stderr)
	tf := newTreeFlags(c.fs)
	depth := c.fs.Uint("depth", 1, "how many `levels` to list (1 to 32)")
	maxEntries := c.fs.Uint("max-entries", guard.DefaultListEntries, "the most `entries` to show")
	return c.run(args, stdout, stderr, func(g *guard.Guard, rc guard.RequestContext) (*guard.Look, error) {
		return g.ListDirectory(context.Background(), guard.ListRequest{RequestContext: rc, Path: *tf.path, Depth: int(min(*depth, 1<<16)),
			MaxEntries: int(min(*maxEntries, guard.MaxListEntries)), Exclude: tf.exclude, Gitignore: *tf.gitignore})
	}, func(pv *toolguardv1.Verdict, lk *guard.Look) proto.Message { return protoapi.ListToProto(pv, lk) })
}

// runFind mirrors FindFiles offline.
func runFind(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	c := newLookCommand("find", "Usage: toolguard find [--workspace DIR] --pattern GLOB [--path FOLDER] [--max-results N] [--exclude PATTERN]... [--gitignore]\n\n", stderr)
	tf := newTreeFlags(c.fs)
	pattern := c.fs.String("pattern", "", "the glob `pattern`: \"*.go\" matches names at any depth, \"src/**/*_test.go\" paths below the folder")
	maxResults := c.fs.Uint("max-results", guard.DefaultListEntries, "the most `paths` to return")
	return c.run(args, stdout, stderr, func(g *guard.Guard, rc guard.RequestContext) (*guard.Look, error) {
		return g.FindFiles(context.Background(), guard.FindRequest{RequestContext: rc, Pattern: *pattern, Path: *tf.path,
			MaxResults: int(min(*maxResults, guard.MaxListEntries)), Exclude: tf.exclude, Gitignore: *tf.gitignore})
	}, func(pv *toolguardv1.Verdict, lk *guard.Look) proto.Message { return protoapi.FindToProto(pv, lk) })
}
