package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/service/protoapi"
)

// runValidate mirrors ValidateToolCall offline. Exit status: 0 when the call
// is usable, 1 when not, 2 for a bad command line or input.
func runValidate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("validate", "Usage: toolguard validate --tool NAME [--model ID] [--form json|params|xml] < arguments\n\n", stderr)
	tool := fs.String("tool", "", "tool name as the model wrote it (may be empty for --form xml)")
	model := fs.String("model", "", "model id, selects model-specific fixes and tool variants")
	form := fs.String("form", "json", "form of stdin: json (arguments text), params (a JSON object of string parameters) or xml (a whole tool block)")
	toolsFile := fs.String("tools-file", "", "YAML or JSON file of custom tool definitions")
	input, code, ok := commandInput(fs, args, stdin, stderr)
	if !ok {
		return code
	}
	call, err := callFromInput(*tool, *form, input)
	if err != nil {
		return fail(stderr, "validate", 2, err)
	}

	cfg := guard.DefaultConfig()
	cfg.ToolsFile = *toolsFile
	// The server's bound on what a verdict echoes: the same answer.
	g, cleanup, err := guard.New(cfg, guard.Options{MaxVerdictBytes: guard.MaxVerdictBytes})
	if err != nil {
		return fail(stderr, "validate", 2, err)
	}
	defer func() { _ = cleanup() }()
	v, err := g.Validate(context.Background(), guard.ValidateRequest{SessionID: "cli", ModelID: *model, Call: call})
	if err != nil {
		return fail(stderr, "validate", 2, err)
	}
	pv, err := protoapi.VerdictToProto(v, "")
	if err == nil {
		err = printProto(stdout, pv)
	}
	if err != nil {
		return fail(stderr, "validate", 2, err)
	}
	if !v.OK() {
		return 1
	}
	return 0
}

func callFromInput(tool, form string, input []byte) (repair.Call, error) {
	switch form {
	case "json":
		if tool == "" {
			return repair.Call{}, errors.New("--tool is required for --form json")
		}
		return repair.Call{Name: tool, Form: repair.FormText, Text: string(input)}, nil
	case "params":
		if tool == "" {
			return repair.Call{}, errors.New("--tool is required for --form params")
		}
		var params map[string]string
		if err := json.Unmarshal(input, &params); err != nil {
			return repair.Call{}, fmt.Errorf("--form params reads a JSON object of string values: %w", err)
		}
		return repair.Call{Name: tool, Form: repair.FormParams, Params: params}, nil
	case "xml":
		return repair.Call{Name: tool, Form: repair.FormXML, Text: string(input)}, nil
	default:
		return repair.Call{}, fmt.Errorf("--form %q: want json, params or xml", form)
	}
}
