package proxy

import (
	"flag"
	"os"
	"testing"
)

// fuzzMinimizeTime bounds how long `go test -fuzz` minimizes an input that
// found new code, unless -fuzzminimizetime is given. Go's default is 60
// s, and the stream targets' inputs are whole streams of up to 32 KiB that
// the minimizer shortens a byte at a time, an execution each: a worker
// minimizing one reports no executions for the whole minute, which looked
// like a hang of the proxy. 2 s leaves a 30 s run most of its time for
// fuzzing; `make fuzz`, for longer runs, passes 10 s.
const fuzzMinimizeTime = "2s"

func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.fuzzminimizetime" })
	if !given {
		if err := flag.Set("test.fuzzminimizetime", fuzzMinimizeTime); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}
