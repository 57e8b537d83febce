package main

import (
	"fmt"
	"io"

	"github.com/toolguard/toolguard/repair"
)

// runRepair mirrors the repair engine offline: it reads text on stdin and
// prints the repaired JSON on stdout, with the repairs as JSON on stderr, or
// with --json one document holding both. Exit status: 0 repaired (or already
// valid), 1 the text was cut off (the value shows what arrived), 2 nothing
// could be recovered or a bad command line.
func runRepair(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("repair", "usage: toolguard repair [--json] < text\n\n", stderr)
	asJSON := fs.Bool("json", false, "print one JSON document holding the value, the repairs and whether the text was truncated")
	input, code, ok := commandInput(fs, args, stdin, stderr)
	if !ok {
		return code
	}
	r, err := repair.RepairJSON(string(input), repair.JSONOptions{})
	if err != nil {
		return fail(stderr, "repair", 2, err)
	}
	repairs := r.Repairs
	if repairs == nil {
		repairs = []repair.Repair{}
	}
	if *asJSON {
		out, err := repair.EncodeJSON(map[string]any{"value": r.Value, "repairs": repairs, "truncated": r.Truncated})
		if err != nil {
			return fail(stderr, "repair", 2, err)
		}
		fmt.Fprintln(stdout, string(out))
	} else {
		value, err := repair.EncodeJSON(r.Value)
		if err != nil {
			return fail(stderr, "repair", 2, err)
		}
		fmt.Fprintln(stdout, string(value))
		report, _ := repair.EncodeJSON(map[string]any{"repairs": repairs, "truncated": r.Truncated})
		fmt.Fprintln(stderr, string(report))
	}
	if r.Truncated {
		return 1
	}
	return 0
}
