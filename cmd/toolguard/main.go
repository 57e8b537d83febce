// Command toolguard runs the toolguard gRPC server and HTTP proxy, and
// mirrors each RPC offline. Run "toolguard help" for the commands.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

// version is set at build time (go build -ldflags "-X main.version=v1.2.3":
// make build and the image stamp the VERSION file's). The linker sets only
// a variable initialised by a constant, hence two variables.
var version = "dev"

// toolguardVersion is the version printed and logged: the one set at build
// time, otherwise the module version the go command stamped into the binary.
var toolguardVersion = buildVersion(version, readBuildInfo)

var readBuildInfo = debug.ReadBuildInfo

// buildVersion prefers an ldflags value, then a module version from build
// info: `go install …@v0.1.0` stamps v0.1.0, a build in a clone stamps a
// pseudo-version from the commit; "(devel)" carries nothing.
func buildVersion(ldflags string, info func() (*debug.BuildInfo, bool)) string {
	if ldflags != "dev" {
		return ldflags
	}
	bi, ok := info()
	if !ok || bi.Main.Version == "" || bi.Main.Version == "(devel)" {
		return ldflags
	}
	return bi.Main.Version
}

// command is one subcommand. run returns the exit code and uses only the
// streams it is given (serve's logger aside), so tests can drive it.
type command struct {
	name    string
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

func commands() []command {
	return []command{
		{name: "serve", summary: "run the gRPC server", run: runServe},
		{name: "mcp", summary: "serve the guarded file tools over the Model Context Protocol (stdio, or streamable HTTP with --http)", run: runMCP},
		{name: "proxy", summary: "run the HTTP proxy that repairs the tool calls in a model server's answers", run: runProxy},
		{name: "repair", summary: "repair the JSON read on stdin, print it and the repairs", run: runRepair},
		{name: "write", summary: "validate a write call read on stdin and write the file in --workspace", run: runWrite},
		{name: "edit", summary: "validate an edit call read on stdin and apply it in --workspace", run: runEdit},
		{name: "read", summary: "read a text file (or a range of its lines) in --workspace, with its SHA-256", run: runRead},
		{name: "list", summary: "list a folder (or a tree, with --depth) of --workspace: types, sizes, links, and how many more", run: runList},
		{name: "find", summary: "find files and folders of --workspace by a glob pattern (** across folders)", run: runFind},
		{name: "read-many", summary: "read several text files (or their first or last lines) in --workspace, each refusal beside its path", run: runReadMany},
		{name: "info", summary: "describe paths in --workspace: type, size, mode, times, line count, SHA-256, denied or not", run: runInfo},
		{name: "read-media", summary: "read an image or other media file in --workspace, as bytes (base64) and MIME type", run: runReadMedia},
		{name: "search", summary: "search the contents of --workspace's files for a regular expression (Go RE2) or --literal text", run: runSearch},
		{name: "validate", summary: "repair and validate one tool call read on stdin, print the verdict", run: runValidate},
		{name: "list-tools", summary: "print the tools, their schemas and usage as ListTools gives them", run: runListTools},
		{name: "eval", summary: "judge recorded traffic (JSON lines of exchanges or calls) offline, print what enforce would have done", run: runEval},
		{name: "stream", summary: "follow a streamed model response (JSON frame lines on stdin), print the events", run: runStream},
		{name: "hash-token", summary: "print the SHA-256 of the bearer token read on stdin, for --auth-tokens-file", run: runHashToken},
		{name: "version", summary: "print the version", run: runVersion},
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run dispatches args[0] to its command. Exit codes: 0 success, 1 failure,
// 2 a wrong command line.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	name, rest := args[0], args[1:]
	switch {
	case name == "--version" || name == "-version" || name == "-v":
		return runVersion(rest, stdin, stdout, stderr)
	case isHelp(name):
		if len(rest) == 0 {
			usage(stdout)
			return 0
		}
		// "help serve" is "serve -h": the command prints its own flags.
		if cmd, ok := lookup(rest[0]); ok {
			cmd.run([]string{"-h"}, stdin, stdout, stdout)
			return 0
		}
		name = rest[0]
	default:
		if cmd, ok := lookup(name); ok {
			return cmd.run(rest, stdin, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "toolguard: unknown command %q\n\n", name)
	usage(stderr)
	return 2
}

func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func usage(w io.Writer) {
	fmt.Fprint(w, "toolguard repairs and validates the tool calls LLM agents emit.\n\n")
	fmt.Fprint(w, "Usage:\n\n\ttoolguard <command> [flags]\n\nCommands:\n\n")
	for _, c := range commands() {
		fmt.Fprintf(w, "\t%-10s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, "\nRun \"toolguard help <command>\" for a command's flags, \"toolguard --version\" (or -v) for the version.\n")
}

func runVersion(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 1 && isHelp(args[0]) {
		fmt.Fprintln(stdout, "Usage: toolguard version\n\nPrints the version: the module version of a go install build, or the one set at build time.")
		return 0
	}
	if len(args) > 0 {
		fmt.Fprintln(stderr, "Usage: toolguard version")
		return 2
	}
	fmt.Fprintf(stdout, "toolguard %s\n", toolguardVersion)
	return 0
}

func isHelp(arg string) bool {
	switch arg {
	case "-h", "-help", "--help", "help":
		return true
	}
	return false
}
