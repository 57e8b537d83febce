package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"google.golang.org/protobuf/proto"

	"github.com/toolguard/toolguard/service/protoapi"
)

// newFlagSet returns a command's flags, printing to stderr: usage, then the
// flags.
func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	return fs
}

// fail reports a command's failure on stderr and returns its exit code.
func fail(stderr io.Writer, command string, code int, err error) int {
	fmt.Fprintf(stderr, "toolguard %s: %v\n", command, err)
	return code
}

// maxStdinBytes bounds what the offline commands read.
const maxStdinBytes = 64 << 20

// commandInput parses a command's flags and reads stdin. When ok is false
// the command exits with code (0 for -h); the reason is on stderr.
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

// parseCommandFlags parses a command's flags and refuses stray arguments;
// when ok is false the command exits with code.
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

// printProto prints an answer as the offline commands promise.
func printProto(stdout io.Writer, m proto.Message) error {
	out, err := protoapi.JSON(m, true)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, string(out))
	return nil
}
