package main

import (
	"context"
	"io"

	"google.golang.org/protobuf/proto"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/service/protoapi"
)

// runSearch mirrors SearchFiles offline.
func runSearch(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	c := newLookCommand("search", "Usage: toolguard search [--workspace DIR] --pattern REGEX [--literal] [--ignore-case|--smart-case] [--path FOLDER]\n"+
		"       [--include GLOB] [--exclude PATTERN]... [--context N|--before N --after N] [--max-results N] [--output-mode MODE] [--gitignore]\n\n", stderr,
		coreSetting("search-max-results"), coreSetting("search-max-files"), coreSetting("search-max-bytes"), coreSetting("search-timeout"))
	fs, tf := c.fs, newTreeFlags(c.fs)
	pattern := fs.String("pattern", "", "the regular `expression` (Go RE2 syntax), matched within a line; with --literal, the text itself")
	include := fs.String("include", "", "a `glob` of the files to search: \"*.go\" a name at any depth, \"src/**/*.py\" a path below the folder")
	literal := fs.Bool("literal", false, "search for the pattern as written")
	ignoreCase := fs.Bool("ignore-case", false, "match regardless of letter case")
	smartCase := fs.Bool("smart-case", false, "match regardless of case unless the pattern has an upper-case letter")
	context_ := fs.Uint("context", 0, "`lines` of context before and after each match (0 to 20)")
	before := fs.Uint("before", 0, "`lines` of context before each match (overrides --context)")
	after := fs.Uint("after", 0, "`lines` of context after each match (overrides --context)")
	maxResults := fs.Uint("max-results", guard.DefaultSearchResults, "the most matching `lines` (or files) to return")
	mode := fs.String("output-mode", "", "`mode`: content (the matching lines, the default), files_with_matches or count")
	lines := func(n *uint) int { return int(min(*n, 1<<16)) }
	return c.run(args, stdout, stderr, func(g *guard.Guard, rc guard.RequestContext) (*guard.Look, error) {
		return g.SearchFiles(context.Background(), guard.SearchRequest{RequestContext: rc, Pattern: *pattern, Path: *tf.path, Include: *include,
			Exclude: tf.exclude, Literal: *literal, IgnoreCase: *ignoreCase, SmartCase: *smartCase, Context: lines(context_),
			Before: lines(before), After: lines(after), MaxResults: int(min(*maxResults, 1<<20)), OutputMode: *mode, Gitignore: *tf.gitignore})
	}, func(pv *toolguardv1.Verdict, lk *guard.Look) proto.Message { return protoapi.SearchToProto(pv, lk) })
}
