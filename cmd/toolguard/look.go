package main

import (
	"context"
	"flag"
	"io"
	"os"
	"strings"

	"google.golang.org/protobuf/proto"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/service/protoapi"
)

// patterns is a repeatable flag: each use adds a pattern.
type patterns []string

func (p *patterns) String() string     { return strings.Join(*p, ",") }
func (p *patterns) Set(s string) error { *p = append(*p, s); return nil }

// lookFlags are what list and find share: the workspace and its policy,
// the folder, the bound, exclusions and .gitignore.
type lookFlags struct {
	cfg       guard.Config
	path      *string
	exclude   patterns
	gitignore *bool
	model     *string
}

func newLookFlags(name, usage string, stderr io.Writer) (*lookFlags, *flag.FlagSet, []setting[guard.Config]) {
	lf := &lookFlags{cfg: guard.DefaultConfig()}
	fs := newFlagSet(name, usage, stderr)
	fs.StringVar(&lf.cfg.Workspace, "workspace", ".", "workspace `directory`")
	lf.path = fs.String("path", "", "the `folder`, as the model wrote it (default the workspace root)")
	fs.Var(&lf.exclude, "exclude", "glob `pattern` of entries to leave out (repeatable): a name without \"/\", a path below the folder with it")
	lf.gitignore = fs.Bool("gitignore", false, "leave out what the .gitignore files ignore")
	lf.model = fs.String("model", "", "model id")
	bindSetting(fs, &lf.cfg, "agent-root")
	withEnv := []setting[guard.Config]{coreSetting("deny")}
	bindSettings(fs, withEnv, &lf.cfg)
	return lf, fs, withEnv
}

// runLook parses the flags, runs the look and prints its response. Exit
// status: 0 when answered, 1 when refused (the verdict says why), 2 for a
// bad command line or workspace.
func runLook(name string, lf *lookFlags, fs *flag.FlagSet, withEnv []setting[guard.Config], args []string, stdout, stderr io.Writer,
	run func(*guard.Guard, guard.RequestContext) (*guard.Look, error), convert func(*toolguardv1.Verdict, *guard.Look) proto.Message) int {
	if err := applyEnv(withEnv, &lf.cfg, os.LookupEnv); err != nil {
		return fail(stderr, name, 2, err)
	}
	if code, ok := parseCommandFlags(fs, args, stderr); !ok {
		return code
	}
	g, cleanup, err := guard.New(lf.cfg, guard.Options{})
	if err != nil {
		return fail(stderr, name, 2, err)
	}
	defer func() { _ = cleanup() }()
	lk, err := run(g, guard.RequestContext{SessionID: "cli", ModelID: *lf.model})
	if err != nil {
		return guardFailure(stderr, name, err)
	}
	pv, err := protoapi.VerdictToProto(lk.Verdict, "")
	if err != nil {
		return fail(stderr, name, 2, err)
	}
	if err := printProto(stdout, convert(pv, lk)); err != nil {
		return fail(stderr, name, 2, err)
	}
	if !lk.OK() {
		return 1
	}
	return 0
}

// runList mirrors ListDirectory offline.
func runList(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	lf, fs, withEnv := newLookFlags("list", "Usage: toolguard list --workspace DIR [--path FOLDER] [--depth N] [--max-entries N] [--exclude PATTERN]... [--gitignore]\n\n", stderr)
	depth := fs.Uint("depth", 1, "how many `levels` to list (1 to 32)")
	maxEntries := fs.Uint("max-entries", guard.DefaultListEntries, "the most `entries` to show")
	return runLook("list", lf, fs, withEnv, args, stdout, stderr, func(g *guard.Guard, rc guard.RequestContext) (*guard.Look, error) {
		return g.ListDirectory(context.Background(), guard.ListRequest{RequestContext: rc, Path: *lf.path, Depth: int(min(*depth, 1<<16)),
			MaxEntries: int(min(*maxEntries, guard.MaxListEntries)), Exclude: lf.exclude, Gitignore: *lf.gitignore})
	}, func(pv *toolguardv1.Verdict, lk *guard.Look) proto.Message { return protoapi.ListToProto(pv, lk) })
}

// runFind mirrors FindFiles offline.
func runFind(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	lf, fs, withEnv := newLookFlags("find", "Usage: toolguard find --workspace DIR --pattern GLOB [--path FOLDER] [--max-results N] [--exclude PATTERN]... [--gitignore]\n\n", stderr)
	pattern := fs.String("pattern", "", "the glob `pattern`: \"*.go\" matches names at any depth, \"src/**/*_test.go\" paths below the folder")
	maxResults := fs.Uint("max-results", guard.DefaultListEntries, "the most `paths` to return")
	return runLook("find", lf, fs, withEnv, args, stdout, stderr, func(g *guard.Guard, rc guard.RequestContext) (*guard.Look, error) {
		return g.FindFiles(context.Background(), guard.FindRequest{RequestContext: rc, Pattern: *pattern, Path: *lf.path,
			MaxResults: int(min(*maxResults, guard.MaxListEntries)), Exclude: lf.exclude, Gitignore: *lf.gitignore})
	}, func(pv *toolguardv1.Verdict, lk *guard.Look) proto.Message { return protoapi.FindToProto(pv, lk) })
}
