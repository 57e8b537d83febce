package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kaptinlin/jsonrepair"

	"github.com/toolguard/toolguard/repair"
	tgjson "github.com/toolguard/toolguard/repair/jsonrepair"
)

// The JSON repair comparison: toolguard's JSON repair (repair/jsonrepair,
// which repair.RepairJSON wraps with repair codes) beside
// github.com/kaptinlin/jsonrepair (a Go port of the npm jsonrepair) and
// encoding/json, on the corpus of Generate. Targets: on broken input
// toolguard at least 5× kaptinlin's throughput; on valid input at most 1.5×
// encoding/json's time decoding into any.
//
// toolguard returns decoded values, kaptinlin repaired text; kaptinlin is
// measured both as the text repair it is ("kaptinlin") and followed by the
// encoding/json decode a caller needs to use its output ("kaptinlin+decode").
// toolguard runs without schema keys (Options{}), knowing no more about
// the text than kaptinlin does.

// tgRepair is toolguard's side: text in, decoded value out.
func tgRepair(s string) (any, error) {
	r, err := tgjson.Repair(s, tgjson.Options{})
	return r.Value, err
}

// kapRepair is kaptinlin's side: text in, repaired text out.
func kapRepair(s string) (string, error) { return jsonrepair.Repair(s) }

// kapDecode is kaptinlin's repair followed by the decode into any.
func kapDecode(s string) (any, error) {
	out, err := jsonrepair.Repair(s)
	if err != nil {
		return nil, err
	}
	return stdDecode(out)
}

// stdDecode is the encoding/json baseline: one value into any, numbers as
// json.Number (as toolguard keeps them), nothing after it.
func stdDecode(s string) (any, error) {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("text after the JSON value")
	}
	return v, nil
}

// stdUnmarshal is json.Unmarshal into any (numbers as float64), the
// plainest use of encoding/json; its input is converted to []byte in setup.
func stdUnmarshal(b []byte) (any, error) {
	var v any
	err := json.Unmarshal(b, &v)
	return v, err
}

type benchCorpus struct {
	Corpus
	brokenBytes, validBytes int64
	// brokenKapOK is the broken documents kaptinlin repairs into valid
	// JSON: the comparison with no early errors on kaptinlin's side.
	brokenKapOK      []Doc
	brokenKapOKBytes int64
	validRaw         [][]byte
	err              error
	report           string
	accuracy         accuracy
}

// accuracy counts the broken documents, truncated ones aside (they have no
// intended value), each side turned into the value the model meant.
type accuracy struct {
	scored, toolguard, kaptinlin int
}

var (
	corpusOnce sync.Once
	theCorpus  benchCorpus
)

// loadCorpus generates the corpus once and checks every side on it. It
// fails the benchmark when toolguard errors on a broken document that is not
// truncated, or on a valid one decodes anything but what encoding/json
// decodes; TestRepairFidelity logs every other disagreement.
func loadCorpus(tb testing.TB) *benchCorpus {
	tb.Helper()
	corpusOnce.Do(func() {
		c := &theCorpus
		c.Corpus = Generate()
		c.brokenBytes = TotalBytes(c.Broken)
		c.validBytes = TotalBytes(c.Valid)
		for _, d := range c.Valid {
			c.validRaw = append(c.validRaw, []byte(d.Input))
		}
		for _, d := range c.Broken {
			if _, err := kapDecode(d.Input); err == nil {
				c.brokenKapOK = append(c.brokenKapOK, d)
			}
		}
		c.brokenKapOKBytes = TotalBytes(c.brokenKapOK)
		c.report, c.accuracy, c.err = checkCorpus(c.Corpus)
		c.report += fmt.Sprintf("brokenKapOK (broken docs kaptinlin repairs into valid JSON): %d docs, %d bytes\n", len(c.brokenKapOK), c.brokenKapOKBytes)
	})
	if theCorpus.err != nil {
		tb.Fatal(theCorpus.err)
	}
	return &theCorpus
}

// TestRepairFidelity holds the checks the benchmarks make in their setup
// (no timing) and logs the corpus composition and, per kind of broken
// document, how often toolguard and kaptinlin failed to recover the value
// the model meant. Run it with -v to see the report.
func TestRepairFidelity(t *testing.T) {
	t.Log("\n" + loadCorpus(t).report)
}

// kindTally counts, for one kind, the documents a side got wrong.
type kindTally struct {
	docs                         int
	tgErr, tgWrong, tgTrunc      int
	kapErr, kapInvalid, kapWrong int
	firstTG, firstKap            string
}

func checkCorpus(c Corpus) (string, accuracy, error) {
	var errs []string
	for i, d := range c.Valid {
		want, err := stdDecode(d.Input)
		if err != nil {
			return "", accuracy{}, fmt.Errorf("generator: valid doc %d (%s) is not JSON: %v", i, d.Kind, err)
		}
		if !reflect.DeepEqual(want, d.Want) {
			return "", accuracy{}, fmt.Errorf("generator: valid doc %d (%s) decodes to another value: %s", i, d.Kind, diff(want, d.Want))
		}
		r, err := repair.RepairJSON(d.Input, repair.JSONOptions{})
		switch {
		case err != nil:
			errs = append(errs, fmt.Sprintf("valid doc %d (%s): toolguard error: %v", i, d.Kind, err))
		case len(r.Repairs) > 0 || r.Truncated:
			errs = append(errs, fmt.Sprintf("valid doc %d (%s): toolguard repaired valid JSON: %v", i, d.Kind, r.Repairs))
		case !reflect.DeepEqual(r.Value, want):
			errs = append(errs, fmt.Sprintf("valid doc %d (%s): toolguard disagrees with encoding/json: %s", i, d.Kind, diff(r.Value, want)))
		}
	}
	kapValidErr, kapValidWrong, kapValidFirst := 0, 0, ""
	for i, d := range c.Valid {
		v, err := kapDecode(d.Input)
		switch {
		case err != nil:
			kapValidErr++
			if kapValidFirst == "" {
				kapValidFirst = fmt.Sprintf("doc %d: %v", i, err)
			}
		case !reflect.DeepEqual(v, d.Want):
			kapValidWrong++
			if kapValidFirst == "" {
				kapValidFirst = fmt.Sprintf("doc %d: %s", i, diff(v, d.Want))
			}
		}
	}
	tallies := map[string]*kindTally{}
	for i, d := range c.Broken {
		if _, err := stdDecode(d.Input); err == nil {
			return "", accuracy{}, fmt.Errorf("generator: broken doc %d (%s) is valid JSON", i, d.Kind)
		}
		t := tallies[d.Kind]
		if t == nil {
			t = &kindTally{}
			tallies[d.Kind] = t
		}
		t.docs++
		r, err := repair.RepairJSON(d.Input, repair.JSONOptions{})
		switch {
		case err != nil && d.Kind != KindTruncated:
			errs = append(errs, fmt.Sprintf("broken doc %d (%s): toolguard error: %v", i, d.Kind, err))
		case err != nil:
			t.tgErr++
		case d.Kind == KindTruncated:
			if r.Truncated {
				t.tgTrunc++
			}
		case !reflect.DeepEqual(r.Value, d.Want):
			t.tgWrong++
			if t.firstTG == "" {
				t.firstTG = fmt.Sprintf("doc %d: %s", i, diff(r.Value, d.Want))
			}
		}
		out, err := kapRepair(d.Input)
		var v any
		if err == nil {
			v, err = stdDecode(out)
			if err != nil {
				t.kapInvalid++
				if t.firstKap == "" {
					t.firstKap = fmt.Sprintf("doc %d: output is not JSON: %v", i, err)
				}
				continue
			}
		}
		switch {
		case err != nil:
			t.kapErr++
			if t.firstKap == "" {
				t.firstKap = fmt.Sprintf("doc %d: %v", i, err)
			}
		case d.Kind != KindTruncated && !reflect.DeepEqual(v, d.Want):
			t.kapWrong++
			if t.firstKap == "" {
				t.firstKap = fmt.Sprintf("doc %d: %s", i, diff(v, d.Want))
			}
		}
	}
	if len(errs) > 0 {
		if len(errs) > 20 {
			errs = append(errs[:20], fmt.Sprintf("... and %d more", len(errs)-20))
		}
		return "", accuracy{}, errors.New(strings.Join(errs, "\n"))
	}

	var b strings.Builder
	fmt.Fprintf(&b, "corpus (seed %d):\n", CorpusSeed)
	for _, set := range []struct {
		name string
		docs []Doc
	}{{"broken", c.Broken}, {"valid", c.Valid}} {
		for _, s := range Composition(set.docs) {
			fmt.Fprintf(&b, "  %-6s %-15s %5d docs %9d bytes\n", set.name, s.Kind, s.Docs, s.Bytes)
		}
		fmt.Fprintf(&b, "  %-6s %-15s %5d docs %9d bytes\n", set.name, "total", len(set.docs), TotalBytes(set.docs))
	}
	fmt.Fprintf(&b, "valid: toolguard = encoding/json on all %d docs (strict fast path, no repairs)\n", len(c.Valid))
	fmt.Fprintf(&b, "valid: kaptinlin+decode errs on %d, decodes another value on %d", kapValidErr, kapValidWrong)
	if kapValidFirst != "" {
		fmt.Fprintf(&b, " (first: %s)", kapValidFirst)
	}
	b.WriteByte('\n')
	fmt.Fprintf(&b, "broken, against the value the model meant (truncated: no intended value; toolguard's Truncated flag counted):\n")
	fmt.Fprintf(&b, "  %-15s %5s | %-29s | %s\n", "kind", "docs", "toolguard err/wrong/truncated", "kaptinlin err/invalid output/wrong")
	for _, k := range BrokenKinds {
		t := tallies[k]
		if t == nil {
			continue
		}
		fmt.Fprintf(&b, "  %-15s %5d | %9d %6d %12d | %13d %14d %6d\n", k, t.docs, t.tgErr, t.tgWrong, t.tgTrunc, t.kapErr, t.kapInvalid, t.kapWrong)
	}
	for _, k := range BrokenKinds {
		if t := tallies[k]; t != nil && t.firstTG != "" {
			fmt.Fprintf(&b, "  first toolguard miss, %s: %s\n", k, t.firstTG)
		}
	}
	for _, k := range BrokenKinds {
		if t := tallies[k]; t != nil && t.firstKap != "" {
			fmt.Fprintf(&b, "  first kaptinlin miss, %s: %s\n", k, t.firstKap)
		}
	}
	var acc accuracy
	for k, t := range tallies {
		if k == KindTruncated {
			continue
		}
		acc.scored += t.docs
		acc.toolguard += t.docs - t.tgErr - t.tgWrong
		acc.kaptinlin += t.docs - t.kapErr - t.kapInvalid - t.kapWrong
	}
	return b.String(), acc, nil
}

// diff describes the first difference between two decoded values.
func diff(got, want any) string {
	var walk func(path string, g, w any) string
	walk = func(path string, g, w any) string {
		switch w := w.(type) {
		case map[string]any:
			gm, ok := g.(map[string]any)
			if !ok {
				return fmt.Sprintf("%s: got %T, want object", path, g)
			}
			keys := make([]string, 0, len(w)+len(gm))
			for k := range w {
				keys = append(keys, k)
			}
			for k := range gm {
				if _, ok := w[k]; !ok {
					keys = append(keys, k)
				}
			}
			sort.Strings(keys)
			for _, k := range keys {
				gv, gok := gm[k]
				wv, wok := w[k]
				switch {
				case !gok:
					return fmt.Sprintf("%s.%s: missing", path, k)
				case !wok:
					return fmt.Sprintf("%s.%s: unexpected %s", path, k, clip(gv))
				}
				if d := walk(path+"."+k, gv, wv); d != "" {
					return d
				}
			}
			return ""
		case []any:
			ga, ok := g.([]any)
			if !ok {
				return fmt.Sprintf("%s: got %T, want array", path, g)
			}
			for i := range min(len(ga), len(w)) {
				if d := walk(fmt.Sprintf("%s[%d]", path, i), ga[i], w[i]); d != "" {
					return d
				}
			}
			if len(ga) != len(w) {
				return fmt.Sprintf("%s: got %d elements, want %d", path, len(ga), len(w))
			}
			return ""
		default:
			if reflect.DeepEqual(g, w) {
				return ""
			}
			if gs, ok := g.(string); ok {
				if ws, ok := w.(string); ok {
					i := 0
					for i < len(gs) && i < len(ws) && gs[i] == ws[i] {
						i++
					}
					return fmt.Sprintf("%s: strings differ at byte %d of %d/%d: got %s, want %s", path, i, len(gs), len(ws), clip(gs[i:]), clip(ws[i:]))
				}
			}
			return fmt.Sprintf("%s: got %s (%T), want %s (%T)", path, clip(g), g, clip(w), w)
		}
	}
	return walk("$", got, want)
}

func clip(v any) string {
	s := fmt.Sprintf("%q", v)
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return s
}

// BenchmarkRepairBroken repairs the whole broken set per op.
func BenchmarkRepairBroken(b *testing.B) {
	c := loadCorpus(b)
	benchSides(b, c.Broken, c.brokenBytes, []string{"toolguard", "kaptinlin", "kaptinlin+decode"})
}

// BenchmarkRepairValid parses the whole valid set per op.
func BenchmarkRepairValid(b *testing.B) {
	c := loadCorpus(b)
	benchSides(b, c.Valid, c.validBytes, []string{"toolguard", "encoding/json", "json.Unmarshal", "kaptinlin", "kaptinlin+decode"})
}

// BenchmarkRepairKinds breaks both sets down by kind of document, to show
// where the whole-set figures come from.
func BenchmarkRepairKinds(b *testing.B) {
	c := loadCorpus(b)
	for _, set := range []struct {
		docs  []Doc
		kinds []string
		sides []string
	}{
		{c.Broken, BrokenKinds, []string{"toolguard", "kaptinlin", "kaptinlin+decode"}},
		{c.Valid, ValidKinds, []string{"toolguard", "encoding/json", "kaptinlin"}},
	} {
		for _, kind := range set.kinds {
			var docs []Doc
			for _, d := range set.docs {
				if d.Kind == kind {
					docs = append(docs, d)
				}
			}
			b.Run(kind, func(b *testing.B) { benchSides(b, docs, TotalBytes(docs), set.sides) })
		}
	}
}

func benchSides(b *testing.B, docs []Doc, bytes int64, sides []string) {
	for _, name := range sides {
		run := sideRunner(name, docs)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(bytes)
			b.ReportAllocs()
			for b.Loop() {
				run()
			}
		})
	}
}

// sink keeps results alive so the compiler cannot drop the work.
var sink any

// sideRunner returns a function that passes every doc through one side.
// Errors are not checked here: loadCorpus has counted them.
func sideRunner(name string, docs []Doc) func() {
	switch name {
	case "toolguard":
		return func() {
			for _, d := range docs {
				sink, _ = tgRepair(d.Input)
			}
		}
	case "kaptinlin":
		return func() {
			for _, d := range docs {
				sink, _ = kapRepair(d.Input)
			}
		}
	case "kaptinlin+decode":
		return func() {
			for _, d := range docs {
				sink, _ = kapDecode(d.Input)
			}
		}
	case "encoding/json":
		return func() {
			for _, d := range docs {
				sink, _ = stdDecode(d.Input)
			}
		}
	case "json.Unmarshal":
		raw := make([][]byte, len(docs))
		for i, d := range docs {
			raw[i] = []byte(d.Input)
		}
		return func() {
			for _, r := range raw {
				sink, _ = stdUnmarshal(r)
			}
		}
	}
	panic("unknown side " + name)
}

// BenchmarkRepairRatios runs every side of both targets in each iteration,
// interleaved (and in alternating order) so all see the same machine, and
// reports each side's throughput and the two target ratios:
// broken_speedup_vs_kaptinlin (toolguard MB/s ÷ kaptinlin MB/s on the
// broken set; target ≥ 5) and valid_vs_encoding_json (toolguard time ÷
// encoding/json time on the valid set; target ≤ 1.5). Because kaptinlin
// gives up early on some documents (prose before a fence), it also reports
// broken_speedup_vs_kaptinlin_where_it_succeeds, on the broken documents
// kaptinlin repairs into valid JSON ("brokenKapOK"), and the speedup over
// kaptinlin followed by the decode into any. The _cpu ratios are the same
// in the process's CPU time (cpuTime), steadier on a shared machine.
// broken-{toolguard,kaptinlin}-recovered-% is each side's accuracy: the
// share of the broken, not truncated documents it turned into the value
// the model meant.
func BenchmarkRepairRatios(b *testing.B) {
	c := loadCorpus(b)
	type timed struct {
		name    string
		run     func()
		bytes   int64
		ns, cpu float64
	}
	sides := []*timed{
		{name: "broken-toolguard", run: sideRunner("toolguard", c.Broken), bytes: c.brokenBytes},
		{name: "broken-kaptinlin", run: sideRunner("kaptinlin", c.Broken), bytes: c.brokenBytes},
		{name: "broken-kaptinlin+decode", run: sideRunner("kaptinlin+decode", c.Broken), bytes: c.brokenBytes},
		{name: "brokenKapOK-toolguard", run: sideRunner("toolguard", c.brokenKapOK), bytes: c.brokenKapOKBytes},
		{name: "brokenKapOK-kaptinlin", run: sideRunner("kaptinlin", c.brokenKapOK), bytes: c.brokenKapOKBytes},
		{name: "valid-toolguard", run: sideRunner("toolguard", c.Valid), bytes: c.validBytes},
		{name: "valid-encoding/json", run: sideRunner("encoding/json", c.Valid), bytes: c.validBytes},
	}
	iter := 0
	for b.Loop() {
		for k := range sides {
			s := sides[k]
			if iter%2 == 1 {
				s = sides[len(sides)-1-k]
			}
			start, cpu := time.Now(), cpuTime()
			s.run()
			s.ns += float64(time.Since(start).Nanoseconds())
			s.cpu += float64(cpuTime() - cpu)
		}
		iter++
	}
	for _, s := range sides {
		// bytes per ns × 1e3 = MB/s (1 MB = 1e6 bytes, as go test's MB/s).
		b.ReportMetric(float64(s.bytes)*float64(iter)/s.ns*1e3, s.name+"-MB/s")
	}
	// Accuracy beside the speed, so one line carries both sides of the trade.
	acc := c.accuracy
	b.ReportMetric(100*float64(acc.toolguard)/float64(acc.scored), "broken-toolguard-recovered-%")
	b.ReportMetric(100*float64(acc.kaptinlin)/float64(acc.scored), "broken-kaptinlin-recovered-%")
	b.ReportMetric(sides[1].ns/sides[0].ns, "broken_speedup_vs_kaptinlin")
	b.ReportMetric(sides[1].cpu/sides[0].cpu, "broken_speedup_vs_kaptinlin_cpu")
	b.ReportMetric(sides[4].cpu/sides[3].cpu, "broken_speedup_vs_kaptinlin_where_it_succeeds_cpu")
	b.ReportMetric(sides[2].ns/sides[0].ns, "broken_speedup_vs_kaptinlin+decode")
	b.ReportMetric(sides[4].ns/sides[3].ns, "broken_speedup_vs_kaptinlin_where_it_succeeds")
	b.ReportMetric(sides[5].ns/sides[6].ns, "valid_vs_encoding_json")
}
