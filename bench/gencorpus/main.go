// Command gencorpus writes the benchmark corpus of bench.Generate as JSONL,
// one {"set", "kind", "input"} object per line, for the benchmarks outside
// Go (bench/npm/bench.mjs), and prints its composition to stderr.
//
// usage: go run ./bench/gencorpus corpus.jsonl
package main

import (
	"bufio"
	"fmt"
	"os"

	"github.com/toolguard/toolguard/bench"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gencorpus corpus.jsonl")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(1)
	}
}

func run(path string) error {
	c := bench.Generate()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if err := c.WriteJSONL(w); err != nil {
		_ = f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	for _, set := range []struct {
		name string
		docs []bench.Doc
	}{{"broken", c.Broken}, {"valid", c.Valid}} {
		fmt.Fprintf(os.Stderr, "%-6s %-15s %5s %10s\n", set.name, "kind", "docs", "bytes")
		for _, s := range bench.Composition(set.docs) {
			fmt.Fprintf(os.Stderr, "%-6s %-15s %5d %10d\n", "", s.Kind, s.Docs, s.Bytes)
		}
		fmt.Fprintf(os.Stderr, "%-6s %-15s %5d %10d\n", "", "total", len(set.docs), bench.TotalBytes(set.docs))
	}
	return nil
}
