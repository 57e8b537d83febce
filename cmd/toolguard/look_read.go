package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"google.golang.org/protobuf/proto"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
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

// runInfo mirrors GetFileInfo offline.
func runInfo(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	c := newLookCommand("info", "Usage: toolguard info [--workspace DIR] --path PATH [--path PATH ...]\n\n", stderr)
	var paths pathList
	c.fs.Var(&paths, "path", "a `path` to describe, as the model wrote it (repeat for several)")
	return c.run(args, stdout, stderr, func(g *guard.Guard, rc guard.RequestContext) (*guard.Look, error) {
		if len(paths) == 0 || len(paths) > guard.MaxInfoPaths {
			return nil, &protoapi.FieldError{Field: "--path", Description: fmt.Sprintf("give 1 to %d paths", guard.MaxInfoPaths)}
		}
		return g.GetFileInfo(context.Background(), guard.InfoRequest{RequestContext: rc, Paths: paths})
	}, func(pv *toolguardv1.Verdict, lk *guard.Look) proto.Message { return protoapi.InfoToProto(pv, lk) })
}

// runReadMany mirrors ReadFiles offline.
func runReadMany(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	c := newLookCommand("read-many", "Usage: toolguard read-many [--workspace DIR] --path PATH [--path PATH ...] [--head N | --tail N] [--line-numbers]\n\n", stderr)
	var paths pathList
	c.fs.Var(&paths, "path", "a `path` to read, as the model wrote it (repeat for several)")
	head, tail := headTailFlags(c.fs)
	numbered := c.fs.Bool("line-numbers", false, `number the lines as "  12 | code"`)
	return c.run(args, stdout, stderr, func(g *guard.Guard, rc guard.RequestContext) (*guard.Look, error) {
		if len(paths) == 0 || len(paths) > guard.MaxReadFiles {
			return nil, &protoapi.FieldError{Field: "--path", Description: fmt.Sprintf("give 1 to %d paths", guard.MaxReadFiles)}
		}
		if *head > 1<<31-1 || *tail > 1<<31-1 {
			return nil, &protoapi.FieldError{Field: "--head", Description: "--head and --tail must be at most 2147483647"}
		}
		return g.ReadFiles(context.Background(), guard.ReadFilesRequest{RequestContext: rc, Paths: paths, Head: int(*head), Tail: int(*tail), LineNumbers: *numbered})
	}, func(pv *toolguardv1.Verdict, lk *guard.Look) proto.Message { return protoapi.ReadFilesToProto(pv, lk) })
}

// runReadMedia mirrors ReadMediaFile offline; the bytes print as base64.
func runReadMedia(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	c := newLookCommand("read-media", "Usage: toolguard read-media [--workspace DIR] --path PATH [--max-media-bytes N]\n\n", stderr, coreSetting("max-media-bytes"))
	path := c.fs.String("path", "", "path of the file, as the model wrote it")
	return c.run(args, stdout, stderr, func(g *guard.Guard, rc guard.RequestContext) (*guard.Look, error) {
		return g.ReadMedia(context.Background(), guard.MediaRequest{RequestContext: rc, Path: *path})
	}, func(pv *toolguardv1.Verdict, lk *guard.Look) proto.Message { return protoapi.MediaToProto(pv, lk) })
}
