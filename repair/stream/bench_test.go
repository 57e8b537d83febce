package stream

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// benchArgs is about size bytes of write_to_file arguments whose content
// looks like source code: quotes, backslashes, braces, tags, non-ASCII.
func benchArgs(size int) string {
	var b strings.Builder
	for b.Len() < size {
		b.WriteString("func f() { s := \"</content> é \\\\ {}\" } // line\n")
	}
	raw, _ := json.Marshal(map[string]string{"path": "src/big.go", "content": b.String()})
	return string(raw)
}

// BenchmarkParserDeltas measures the parser alone on 1 MB of OpenAI
// arguments in 16-byte deltas, and on the same text in one piece.
func BenchmarkParserDeltas(b *testing.B) {
	args := benchArgs(1 << 20)
	for _, n := range []int{16, len(args)} {
		name := "16B"
		if n == len(args) {
			name = "whole"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(args)))
			events := 0
			for b.Loop() {
				p, _ := New(OpenAI, Options{}, func(Event) { events++ })
				_ = p.ToolDelta(ToolDelta{Index: 0, ID: "call_1", Name: "write_to_file"})
				for i := 0; i < len(args); i += n {
					_ = p.ToolDelta(ToolDelta{Index: 0, Arguments: args[i:min(i+n, len(args))]})
				}
				_ = p.End(false)
			}
		})
	}
}

// BenchmarkParserText measures the text formats on calls to write_to_file,
// in 16-byte pieces and in one piece: the tag machine's per-byte cost, at
// 256 KB, 1 MB and 4 MB to show it stays linear.
func BenchmarkParserText(b *testing.B) {
	var content strings.Builder
	for content.Len() < 1<<16 {
		content.WriteString("func f() { s := \"</parameter> é <b>\" }\n<parameter=x> // line\n")
	}
	call := map[Format]string{
		QwenXML: "<tool_call>\n<function=write_to_file>\n<parameter=path>\nsrc/big.go\n</parameter>\n<parameter=content>\n" +
			content.String() + "</parameter>\n</function>\n</tool_call>\n",
		MiniMax: "<minimax:tool_call>\n<invoke name=\"write_to_file\">\n<parameter name=\"path\">src/big.go</parameter>\n<parameter name=\"content\">" +
			content.String() + "</parameter>\n</invoke>\n</minimax:tool_call>\n",
	}
	args, _ := json.Marshal(map[string]any{"name": "write_to_file", "arguments": map[string]string{"path": "src/big.go", "content": content.String()}})
	call[Hermes] = "<tool_call>\n" + string(args) + "\n</tool_call>\n"
	maps.Copy(call, jsonFormatBenchCalls(content.String()))
	maps.Copy(call, tagFormatBenchCalls(content.String()))
	// Auto on the qwen_xml calls: the cost of detection beside the format's.
	call[Auto] = call[QwenXML]
	for _, f := range slices.Sorted(maps.Keys(call)) {
		for _, size := range []int{256 << 10, 1 << 20, 4 << 20} {
			text := benchResponse(f, call[f], size)
			for _, piece := range []int{16, len(text)} {
				name := fmt.Sprintf("%s/%dKB/16B", f, size>>10)
				if piece == len(text) {
					name = fmt.Sprintf("%s/%dKB/whole", f, size>>10)
				}
				b.Run(name, func(b *testing.B) { benchText(b, f, text, piece) })
			}
		}
	}
}

func benchText(b *testing.B, f Format, text string, piece int) {
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		p, _ := New(f, Options{Tools: map[string]ToolTags{"write_to_file": {Params: map[string]bool{"path": false, "content": true}}}}, func(Event) {})
		for i := 0; i < len(text); i += piece {
			_ = p.Text(text[i:min(i+piece, len(text))])
		}
		_ = p.End(false)
	}
}

// tagFormatBenchCalls are calls to write_to_file with content in the
// formats of tagfmt (the pythonic one a list item: benchResponse makes the list).
func tagFormatBenchCalls(content string) map[Format]string {
	py, _ := json.Marshal(content) // a JSON string is a Python string literal here: no \u escapes of astral characters
	return map[Format]string{
		GLM45: "<tool_call>write_to_file\n<arg_key>path</arg_key>\n<arg_value>src/big.go</arg_value>\n<arg_key>content</arg_key>\n<arg_value>" +
			content + "</arg_value>\n</tool_call>\n",
		ClaudeXML: "<function_calls>\n<invoke name=\"write_to_file\">\n<parameter name=\"path\">src/big.go</parameter>\n<parameter name=\"content\">" +
			content + "</parameter>\n</invoke>\n</function_calls>\n",
		Pythonic: "write_to_file(path='src/big.go', content=" + string(py) + ")",
	}
}

// benchResponse is about size bytes of calls: prose then calls, or for
// pythonic the list of calls the response starts with.
func benchResponse(f Format, call string, size int) string {
	n := max(1, size/len(call))
	if f == Pythonic {
		return "[" + strings.Repeat(call+", ", n-1) + call + "]"
	}
	return "Writing it.\n" + strings.Repeat(call, n)
}

// BenchmarkAutoProse measures detection where auto pays for it: prose full
// of tags, brackets and braces (Markdown, HTML, code) and no call, beside
// qwen_xml, which looks only for its own tags.
func BenchmarkAutoProse(b *testing.B) {
	var prose strings.Builder
	for prose.Len() < 1<<20 {
		prose.WriteString("Use <b>bold</b> and [links](x) in `f() { return a[i] }`; <tool_call> tags wrap calls, {\"a\": 1} is JSON.\n")
	}
	for _, f := range []Format{QwenXML, Auto} {
		for _, piece := range []int{16, prose.Len()} {
			name := fmt.Sprintf("%s/16B", f)
			if piece == prose.Len() {
				name = fmt.Sprintf("%s/whole", f)
			}
			b.Run(name, func(b *testing.B) { benchText(b, f, prose.String(), piece) })
		}
	}
}

// openerFloods are responses of one opener, or one opener and a tiny call,
// repeated: the input a parser must read in linear time however it splits.
var openerFloods = []struct {
	name   string
	format Format
	unit   string
}{
	{"mistral/opener", Mistral, "[TOOL_CALLS]"},
	{"mistral/call", Mistral, `[TOOL_CALLS]f[ARGS]{}`},
	{"mistral/list", Mistral, `[TOOL_CALLS][{"name":"f","arguments":{}}]`},
	{"llama3_json/opener", Llama3JSON, `{"name": `},
	{"llama3_json/call", Llama3JSON, `{"name": "f", "parameters": {}};`},
	{"auto/mixed", Auto, `<tool_call><function=[TOOL_CALLS]{"name": `},
	{"auto/hermes", Auto, `<tool_call>`},
	{"auto/qwen", Auto, `<function=`},
	{"auto/mistral", Auto, "[TOOL_CALLS]"},
	{"auto/llama3_json", Auto, `{"name": `},
	{"auto/call", Auto, `<tool_call>{"name": "f", "arguments": {}}</tool_call>`},
}

// BenchmarkOpenerFlood measures floods of openers at 1, 2, 4 and 8 MiB, in
// one piece and in 16-byte pieces: linear when ns/byte stays put as the
// size doubles.
func BenchmarkOpenerFlood(b *testing.B) {
	for _, fl := range openerFloods {
		for _, size := range []int{1 << 20, 2 << 20, 4 << 20, 8 << 20} {
			text := strings.Repeat(fl.unit, size/len(fl.unit)+1)[:size]
			for _, piece := range []int{16, size} {
				name := fmt.Sprintf("%s/%dMiB/16B", fl.name, size>>20)
				if piece == size {
					name = fmt.Sprintf("%s/%dMiB/whole", fl.name, size>>20)
				}
				b.Run(name, func(b *testing.B) {
					b.SetBytes(int64(size))
					for b.Loop() {
						p, _ := New(fl.format, Options{MaxCallBytes: 16 << 20}, func(Event) {})
						for i := 0; i < len(text); i += piece {
							_ = p.Text(text[i:min(i+piece, len(text))])
						}
						_ = p.End(false)
					}
				})
			}
		}
	}
}

// manyParams is an arguments object of n short parameters, strings and
// numbers: a call whose cost is in its keys, not its bytes.
func manyParams(n int) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		if i%4 == 3 {
			fmt.Fprintf(&b, "\"p%d\":%d", i, i)
		} else {
			fmt.Fprintf(&b, "\"p%d\":\"v%d\"", i, i)
		}
	}
	b.WriteByte('}')
	return b.String()
}

// processCPU is the CPU time of the process on every thread, the
// collector's included: on a shared machine it varies far less than the
// wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkParserParams parses calls of 10,000 and 100,000 parameters in
// 16-byte deltas, alternately in one run, and reports the second's cost
// over the first's: 10 when the parser is linear in the parameters
// (params_100k_vs_10k in wall time, _cpu in CPU time).
func BenchmarkParserParams(b *testing.B) {
	calls := [2]string{manyParams(10_000), manyParams(100_000)}
	var ns, cpu [2]float64
	iter := 0
	for b.Loop() {
		for k := range calls {
			j := (k + iter) % len(calls) // alternate which runs first
			start, c := time.Now(), processCPU()
			p, _ := New(OpenAI, Options{MaxCallBytes: 64 << 20}, func(Event) {})
			_ = p.ToolDelta(ToolDelta{Index: 0, ID: "call_1", Name: "f"})
			for i := 0; i < len(calls[j]); i += 16 {
				_ = p.ToolDelta(ToolDelta{Index: 0, Arguments: calls[j][i:min(i+16, len(calls[j]))]})
			}
			_ = p.End(false)
			ns[j] += float64(time.Since(start))
			cpu[j] += float64(processCPU() - c)
		}
		iter++
	}
	b.ReportMetric(cpu[0]/float64(iter)/1e6, "10k-cpu-ms")
	b.ReportMetric(cpu[1]/float64(iter)/1e6, "100k-cpu-ms")
	b.ReportMetric(ns[1]/ns[0], "params_100k_vs_10k")
	b.ReportMetric(cpu[1]/cpu[0], "params_100k_vs_10k_cpu")
}
