// Command plots draws the charts of docs/benchmarks.md from `go test -bench`
// output: the stream's growth curve beside a naive re-parse, JSON repair
// beside kaptinlin/jsonrepair, and ValidateToolCall beside the health check.
// It uses only the standard library, so `make bench-plots` needs nothing but
// the Go toolchain.
//
//	go run ./bench/plots -in docs/img/bench.txt -out docs/img
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

func main() {
	in := flag.String("in", "-", "benchmark output to read (- for stdin)")
	out := flag.String("out", "docs/img", "folder to write the SVG files to")
	flag.Parse()
	if err := run(*in, *out); err != nil {
		fmt.Fprintln(os.Stderr, "plots:", err)
		os.Exit(1)
	}
}

func run(in, out string) error {
	var r io.Reader = os.Stdin
	if in != "-" {
		f, err := os.Open(in)
		if err != nil {
			return fmt.Errorf("opening the benchmark output: %w", err)
		}
		defer func() { _ = f.Close() }()
		r = f
	}
	rs, err := parseBench(r)
	if err != nil {
		return err
	}
	for _, c := range charts {
		svg, err := c.draw(rs)
		if err != nil {
			return fmt.Errorf("%s: %w", c.file, err)
		}
		path := filepath.Join(out, c.file)
		if err := os.WriteFile(path, svg, 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	return nil
}
