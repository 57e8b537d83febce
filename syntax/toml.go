package syntax

import (
	"context"
	"errors"

	"github.com/pelletier/go-toml/v2"
)

func init() { register("toml", []string{".toml"}, nil, checkTOML) }

// checkTOML decodes the file with go-toml, which stops at the first error
// and gives its row and column (a key defined twice is an error of TOML's
// too).
func checkTOML(ctx context.Context, src []byte, _ int) ([]Error, error) {
	return bounded(ctx, func() ([]Error, error) {
		var v map[string]any
		err := toml.Unmarshal(src, &v)
		if err == nil {
			return nil, nil
		}
		var de *toml.DecodeError
		if !errors.As(err, &de) {
			return nil, err
		}
		line, col := de.Position()
		return []Error{{Line: line, Column: col, Message: de.Error()}}, nil
	})
}
