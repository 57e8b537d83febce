package syntax

import (
	"context"
	"encoding/json"
	"errors"
)

// The check only validates (a scanner, no values kept): decoding the
// values, into maps and slices, took nine times the file's size for
// nothing the check reads.
func init() { register("json", []string{".json"}, nil, 1, checkJSON) }

// checkJSON reports the first error encoding/json finds, at its offset.
func checkJSON(_ context.Context, src []byte, _ int) ([]Error, error) {
	if json.Valid(src) {
		return nil, nil
	}
	var raw json.RawMessage // Unmarshal validates before it copies: the error, with its offset
	err := json.Unmarshal(src, &raw)
	if err == nil {
		return nil, nil
	}
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return nil, err
	}
	line, col := Position(src, int(se.Offset)-1) // Offset is past the offending byte
	return []Error{{Line: line, Column: col, Message: se.Error()}}, nil
}

// Position turns a byte offset of src into a 1-based line and column.
func Position(src []byte, off int) (line, col int) {
	off = min(max(off, 0), len(src))
	line, col = 1, 1
	for _, c := range src[:off] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}
