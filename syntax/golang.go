package syntax

import (
	"context"
	"errors"
	"go/parser"
	"go/scanner"
	"go/token"
)

func init() { register("go", []string{".go"}, nil, 16, checkGo) }

// checkGo parses a Go file with go/parser, every error reported (the
// standard library's own parser: what gofmt and the compiler say).
func checkGo(ctx context.Context, src []byte, max int) ([]Error, error) {
	return bounded(ctx, func() ([]Error, error) {
		_, err := parser.ParseFile(token.NewFileSet(), "", src, parser.AllErrors|parser.SkipObjectResolution)
		if err == nil {
			return nil, nil
		}
		var list scanner.ErrorList
		if !errors.As(err, &list) {
			return nil, err
		}
		var out []Error
		for _, e := range list {
			if len(out) == max {
				break
			}
			out = append(out, Error{Line: e.Pos.Line, Column: e.Pos.Column, Message: e.Msg})
		}
		return out, nil
	})
}
