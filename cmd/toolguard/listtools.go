package main

import (
	"io"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/service/protoapi"
)

// runListTools mirrors ListTools offline: the built-in tools and those of
// --tools-file, rendered for the model's family.
func runListTools(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("list-tools", "Usage: toolguard list-tools [--model ID] [--tools-file FILE]\n\n", stderr)
	model := fs.String("model", "", "model id: the tools' names and parameters as that model family knows them")
	toolsFile := fs.String("tools-file", "", "YAML or JSON file of custom tool definitions")
	if code, ok := parseCommandFlags(fs, args, stderr); !ok {
		return code
	}
	cfg := guard.DefaultConfig()
	cfg.ToolsFile = *toolsFile
	g, cleanup, err := guard.New(cfg, guard.Options{})
	if err != nil {
		return fail(stderr, "list-tools", 2, err)
	}
	defer func() { _ = cleanup() }()
	out, err := protoapi.ListToolsResponse(g.Registry(), *model)
	if err == nil {
		err = printProto(stdout, out)
	}
	if err != nil {
		return fail(stderr, "list-tools", 2, err)
	}
	return 0
}
