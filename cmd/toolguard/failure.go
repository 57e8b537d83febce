package main

import (
	"fmt"
	"io"

	"github.com/toolguard/toolguard/guard/failure"
)

// exitFailure is the exit status of a call the guard could not answer,
// whatever its kind: 1 is kept for a call answered but not usable, so a
// script tells the model's mistake from the command's.
const exitFailure = 2

// guardFailure reports an error of the guard by its kind (failure.Classify)
// and returns the exit status.
func guardFailure(stderr io.Writer, command string, err error) int {
	f := failure.Classify(err)
	if f.Kind == failure.Storage {
		// The sentence first: the cause alone reads like a bug.
		fmt.Fprintf(stderr, "toolguard %s: %s\n(%v)\n", command, f.Message, err)
		return exitFailure
	}
	return fail(stderr, command, exitFailure, err)
}
