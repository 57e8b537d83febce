package main

import (
	"fmt"
	"io"

	"github.com/toolguard/toolguard/repair"
)

// runRepair repairs the JSON on stdin: the value on stdout, the repairs on
// stderr (or both in one document with --json). Exit status: 0 repaired, 1
// cut off, 2 nothing recovered or a bad command line.
func runRepair(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("repair", "Usage: toolguard repair [--json] < text\n\n", stderr)
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
