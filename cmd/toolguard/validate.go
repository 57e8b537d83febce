package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"google.golang.org/protobuf/proto"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/service/protoapi"
)

// maxStdinBytes bounds what the offline commands read, like the server's
// message size limit.
const maxStdinBytes = 64 << 20

// commandInput parses a command's flags, refuses stray arguments and
// reads stdin, bounded like the server's messages. When ok is false the
// command exits with code (0 for -h, 2 otherwise); the reason is on stderr.
func commandInput(fs *flag.FlagSet, args []string, stdin io.Reader, stderr io.Writer) (input []byte, code int, ok bool) {
	if code, ok := parseCommandFlags(fs, args, stderr); !ok {
		return nil, code, false
	}
	input, err := io.ReadAll(io.LimitReader(stdin, maxStdinBytes+1))
	if err != nil {
		fmt.Fprintf(stderr, "toolguard %s: read stdin: %v\n", fs.Name(), err)
		return nil, 2, false
	}
	if len(input) > maxStdinBytes {
		fmt.Fprintf(stderr, "toolguard %s: input is larger than %d bytes\n", fs.Name(), maxStdinBytes)
		return nil, 2, false
	}
	return input, 0, true
}

// parseCommandFlags parses a command's flags and refuses stray arguments,
// for every command (commandInput, and those that read stdin themselves). When ok
// is false the command exits with code (0 for -h, 2 otherwise).
func parseCommandFlags(fs *flag.FlagSet, args []string, stderr io.Writer) (code int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, false
		}
		return 2, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "toolguard %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return 2, false
	}
	return 0, true
}

// printProto prints a response as JSON with proto field names, every
// field shown, as the offline commands promise.
func printProto(stdout io.Writer, m proto.Message) error {
	out, err := protoapi.JSON(m, true)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, string(out))
	return nil
}

// runValidate mirrors ValidateToolCall offline: it reads one call's
// arguments on stdin, validates them with the same core as the server and
// prints the Verdict as JSON with proto field names. Exit status: 0 when the
// call is usable, 1 when it is not, 2 for a bad command line or input.
func runValidate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	tool := fs.String("tool", "", "tool name as the model wrote it (may be empty for --form xml)")
	model := fs.String("model", "", "model id, selects model-specific fixes and tool variants")
	form := fs.String("form", "json", "form of stdin: json (arguments text), params (a JSON object of string parameters) or xml (a whole tool block)")
	toolsFile := fs.String("tools-file", "", "YAML or JSON file of custom tool definitions")
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: toolguard validate --tool NAME [--model ID] [--form json|params|xml] < arguments\n\n")
		fs.PrintDefaults()
	}
	input, code, ok := commandInput(fs, args, stdin, stderr)
	if !ok {
		return code
	}
	call, err := callFromInput(*tool, *form, input)
	if err != nil {
		fmt.Fprintf(stderr, "toolguard validate: %v\n", err)
		return 2
	}

	cfg := guard.DefaultConfig()
	cfg.ToolsFile = *toolsFile
	g, cleanup, err := guard.New(cfg, guard.Options{})
	if err != nil {
		fmt.Fprintf(stderr, "toolguard validate: %v\n", err)
		return 2
	}
	defer cleanup()
	v, err := g.Validate(context.Background(), guard.ValidateRequest{SessionID: "cli", ModelID: *model, Call: call})
	if err != nil {
		fmt.Fprintf(stderr, "toolguard validate: %v\n", err)
		return 2
	}
	pv, err := protoapi.VerdictToProto(v, "")
	if err != nil {
		fmt.Fprintf(stderr, "toolguard validate: %v\n", err)
		return 2
	}
	if err := printProto(stdout, pv); err != nil {
		fmt.Fprintf(stderr, "toolguard validate: %v\n", err)
		return 2
	}
	if !v.OK() {
		return 1
	}
	return 0
}

// callFromInput builds a call from the command line and stdin.
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
