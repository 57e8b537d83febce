package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/toolguard/toolguard/internal/auth"
)

const maxTokenBytes = 4096

// minTokenBytes is the shortest token accepted without a warning: plain
// SHA-256 hashes protect only tokens too random to guess.
const minTokenBytes = 32

// runHashToken prints the SHA-256 of the bearer token on stdin, never an
// argument, so it stays out of the shell history and the process list.
func runHashToken(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("hash-token", "Usage: toolguard hash-token < token\n\n"+
		"Reads a bearer token on stdin (one trailing line break is ignored) and prints\n"+
		"its SHA-256 in hex, for the sha256 field of an --auth-tokens-file entry.\n"+
		"Make tokens random, e.g. openssl rand -hex 32.\n", stderr)
	if code, ok := parseCommandFlags(fs, args, stderr); !ok {
		return code
	}
	input, err := io.ReadAll(io.LimitReader(stdin, maxTokenBytes+1))
	if err != nil {
		fmt.Fprintf(stderr, "toolguard hash-token: read stdin: %v\n", err)
		return 1
	}
	if len(input) > maxTokenBytes {
		fmt.Fprintf(stderr, "toolguard hash-token: the token is longer than %d bytes\n", maxTokenBytes)
		return 2
	}
	token := strings.TrimSuffix(strings.TrimSuffix(string(input), "\n"), "\r")
	switch {
	case token == "":
		fmt.Fprintln(stderr, "toolguard hash-token: no token on stdin")
		return 2
	case strings.ContainsAny(token, "\r\n"):
		fmt.Fprintln(stderr, "toolguard hash-token: the token spans several lines; send one token")
		return 2
	case token != strings.TrimSpace(token):
		fmt.Fprintln(stderr, "toolguard hash-token: the token starts or ends with white space, which a client would not send")
		return 2
	case len(token) < minTokenBytes:
		fmt.Fprintf(stderr, "toolguard hash-token: warning: the token is only %d bytes; use a random one of at least %d (openssl rand -hex 32)\n", len(token), minTokenBytes)
	}
	fmt.Fprintln(stdout, auth.HashToken(token))
	return 0
}
