package syntax

import (
	"context"
	"errors"

	"github.com/pelletier/go-toml/v2/unstable"
)

// The parser reads expression by expression, keeping none: a check
// allocates next to nothing, and a factor of 1 stands for the little it does.
func init() { register("toml", []string{".toml"}, nil, 1, checkTOML) }

// checkTOML parses the file with go-toml's parser, which stops at the first
// error. It checks the syntax only, as the YAML check does: a key defined
// twice is not reported (decoding the whole file to find it grows faster
// than the file: 100k lines took seconds).
func checkTOML(ctx context.Context, src []byte, _ int) ([]Error, error) {
	return bounded(ctx, func() ([]Error, error) {
		var p unstable.Parser
		p.Reset(src)
		for p.NextExpression() {
		}
		err := p.Error()
		if err == nil {
			return nil, nil
		}
		var pe *unstable.ParserError
		if !errors.As(err, &pe) {
			return nil, err
		}
		off := len(src)
		if len(pe.Highlight) > 0 {
			off = int(p.Range(pe.Highlight).Offset)
		}
		line, col := Position(src, off)
		return []Error{{Line: line, Column: col, Message: pe.Message}}, nil
	})
}
