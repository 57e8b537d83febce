package syntax

import (
	"context"
	"encoding/json"
	"errors"
)

func init() { register("json", []string{".json"}, nil, 12, checkJSON) }

// checkJSON reports the first error encoding/json finds, at its offset.
func checkJSON(_ context.Context, src []byte, _ int) ([]Error, error) {
	var v any
	err := json.Unmarshal(src, &v)
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
