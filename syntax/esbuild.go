package syntax

import (
	"context"

	"github.com/evanw/esbuild/pkg/api"
)

// JavaScript, TypeScript, JSX, TSX and CSS are parsed by esbuild's Go API:
// a transform without minifying or bundling, whose errors are the parser's.
// Plain .js files are read with the JSX loader: JSX in .js is common (React
// projects), and the JSX reading of a file without JSX is the JS one.
//
// The memory of a check is the Go heap a transform allocates per byte
// (BenchmarkSyntaxMemory, plus a quarter): minified JavaScript, a token
// every few bytes, takes half as much again as code laid out by hand.
func init() {
	register("javascript", []string{".js", ".mjs", ".cjs"}, []string{"node", "nodejs", "bun", "deno"}, 90, esbuildChecker(api.LoaderJSX))
	register("jsx", []string{".jsx"}, nil, 80, esbuildChecker(api.LoaderJSX))
	register("typescript", []string{".ts", ".mts", ".cts"}, []string{"ts-node", "tsx"}, 56, esbuildChecker(api.LoaderTS))
	register("tsx", []string{".tsx"}, nil, 64, esbuildChecker(api.LoaderTSX))
	register("css", []string{".css"}, nil, 72, esbuildChecker(api.LoaderCSS))
}

func esbuildChecker(loader api.Loader) Checker {
	return func(ctx context.Context, src []byte, max int) ([]Error, error) {
		return bounded(ctx, func() ([]Error, error) {
			r := api.Transform(string(src), api.TransformOptions{Loader: loader, LogLevel: api.LogLevelSilent})
			msgs := r.Errors
			if loader == api.LoaderCSS {
				// CSS recovers from every error, as browsers do: what it
				// recovers from is a warning, and a syntax error all the
				// same; its other warnings (an unknown property) are not.
				for _, w := range r.Warnings {
					if w.ID == "css-syntax-error" || w.ID == "js-comment-in-css" {
						msgs = append(msgs, w)
					}
				}
			}
			var out []Error
			for _, m := range msgs {
				if len(out) == max {
					break
				}
				e := Error{Message: m.Text}
				if m.Location != nil {
					e.Line, e.Column = m.Location.Line, m.Location.Column+1
				}
				out = append(out, e)
			}
			return out, nil
		})
	}
}
