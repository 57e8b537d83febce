package stream

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/oracle"
	"github.com/toolguard/toolguard/repair"
)

// The corruption oracle (internal/oracle) through the stream parsers: each
// case rendered in every format, whole and in random chunks, as written and
// with a format tag dropped or repeated, a cut or prose after it; every
// call the parser closes goes through repair.Validate. The answer is the
// original call or a refusal (no call, a truncated one, or one not
// usable). Run with -v for the tables:
//
//	go test ./repair/stream/ -run TestOracle -v

type oracleEnv struct {
	reg  *repair.Registry
	opts map[string]repair.Options // by agent
	tags map[string]map[string]ToolTags
}

func newOracleEnv(t testing.TB) *oracleEnv {
	reg, err := repair.NewRegistryWithoutTools()
	if err != nil {
		t.Fatal(err)
	}
	env := &oracleEnv{reg: reg, opts: map[string]repair.Options{}, tags: map[string]map[string]ToolTags{}}
	for _, ot := range oracle.Tools() {
		tool, err := reg.Compile(repair.ToolDef{Name: ot.Name, Parameters: ot.Schema})
		if err != nil {
			t.Fatalf("%s: %v", ot.Name, err)
		}
		o := env.opts[ot.Agent]
		o.Tools = append(o.Tools, tool)
		env.opts[ot.Agent] = o
		// As guard gives them: every spelling, content or not.
		tags := ToolTags{Params: map[string]bool{}}
		for spelling, canonical := range tool.ParamSpellings() {
			tags.Params[spelling] = tool.IsContentParam(canonical)
		}
		if env.tags[ot.Agent] == nil {
			env.tags[ot.Agent] = map[string]ToolTags{}
		}
		env.tags[ot.Agent][ot.Name] = tags
	}
	return env
}

// run feeds a rendered response to a parser of the format and judges what
// it closes.
func (env *oracleEnv) run(t testing.TB, format Format, c oracle.Case, r oracle.Response, rng *rand.Rand) (oracle.Outcome, string) {
	var calls []Event
	p, err := New(format, Options{Tools: env.tags[c.Want.Tool.Agent], MaxJSONDepth: repair.MaxJSONDepth}, func(e Event) {
		if e.Kind == EventCallClosed {
			calls = append(calls, e)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	var pieces []piece
	if format.Structured() {
		pieces = []piece{frag(0, "call_0", c.Want.Tool.Name, r.Args)}
		if format == Anthropic {
			pieces = append(pieces, done(0))
		}
	} else {
		pieces = []piece{text(r.Text())}
	}
	if rng.IntN(2) == 0 {
		pieces = resplit(pieces, func(n int) []int {
			var at []int
			for k := 1 + rng.IntN(8); k < n; k += 1 + rng.IntN(16) {
				at = append(at, k)
			}
			return at
		})
	}
	for _, pc := range pieces {
		if pc.delta != nil {
			err = p.ToolDelta(*pc.delta)
		} else {
			err = p.Text(pc.text)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := p.End(false); err != nil {
		t.Fatal(err)
	}
	out, detail, usable := oracle.Refused, "", 0
	for _, e := range calls {
		if e.Truncated {
			continue
		}
		res := env.reg.Validate(e.Call, env.opts[c.Want.Tool.Agent])
		o := oracle.Judge(c, res.OK(), res.ToolName, res.Args)
		if res.OK() {
			usable++
		}
		if o != oracle.Refused && (out == oracle.Refused || o == oracle.Wrong) {
			out = o
			detail = oracle.Describe("stream/"+format.String(), c, res.ToolName, res.Args, "response "+strings.ReplaceAll(r.Text(), "\n", `\n`))
		}
	}
	if usable > 1 {
		// One call, written once: two usable calls run it twice.
		return oracle.Wrong, "two usable calls from one: " + detail
	}
	return out, detail
}

// oracleStreamKnown are the silent-wrong classes the oracle has found in
// the stream paths and the engine does not fix yet, with their reasons;
// counted and logged, not failed. Every other one fails the test.
var oracleStreamKnown = map[string]string{}

func oracleStreamKnownClass(c oracle.Case, sk oracle.Kind, format Format) (string, bool) {
	if _, ok := oracleStreamKnown[c.Name()]; ok {
		return c.Name(), true
	}
	for _, k := range c.Kinds {
		if _, ok := oracleStreamKnown[string(k)]; ok {
			return string(k), true
		}
	}
	if _, ok := oracleStreamKnown[string(sk)]; ok {
		return string(sk), true
	}
	if _, ok := oracleStreamKnown[format.String()+"+"+string(sk)]; ok {
		return format.String() + "+" + string(sk), true
	}
	return "", false
}

// oracleStreamFloors are the repair rates kept per corruption of the
// arguments, over every format that carries it and every stream corruption
// (a cut response among them).
var oracleStreamFloors = map[string]float64{
	"python_literals": 0.5,
	"double_encoded":  0.6,
	"raw_arguments":   0.6,
	"code_fence":      0.5,
}

func TestOracle(t *testing.T) {
	env := newOracleEnv(t)
	n := 120 // cases of each kind alone, each in every format
	if testing.Short() || oracle.Race {
		n = 30
	}
	byFormat, byKind, valid, known := oracle.Table{}, oracle.Table{}, oracle.Table{}, map[string]int{}
	var fails []string
	for ci, kinds := range oracle.Combos() {
		count := n
		if len(kinds) > 1 {
			count = n / 8
		}
		for i := range count {
			seed := uint64(ci)<<32 | uint64(i)
			c, g, ok := oracle.Draw(seed, kinds...)
			if !ok {
				continue
			}
			rng := g.Rand()
			for _, format := range Formats() {
				r, ok := oracle.Render(format.String(), c, rng)
				if !ok {
					continue
				}
				sk := oracle.None
				if rng.IntN(2) == 0 {
					k := oracle.StreamKinds[rng.IntN(len(oracle.StreamKinds))]
					if bad, ok := oracle.CorruptResponse(r, k, rng); ok {
						r, sk = bad, k
					}
				}
				cc := c
				if sk == oracle.StreamCut && r.Args != "" {
					cc = oracle.ArrivedAt(c, r.Args)
				}
				out, detail := env.run(t, format, cc, r, rng)
				byFormat.Add(format.String()+"+"+string(sk), out)
				if c.Name() == string(oracle.None) && sk == oracle.None {
					valid.Add(format.String(), out)
				}
				byKind.Add(c.Name(), out)
				if out != oracle.Wrong {
					continue
				}
				if class, ok := oracleStreamKnownClass(c, sk, format); ok {
					known[class]++
					continue
				}
				fails = append(fails, detail)
			}
		}
	}
	t.Logf("corruption oracle, stream formats, by format and stream corruption:\n%s", byFormat)
	t.Logf("corruption oracle, stream formats, by corruption of the arguments:\n%s", byKind)
	cases, wrong := byFormat.Total()
	t.Logf("%d cases, %d silent-wrong, of known classes: %v", cases, wrong, known)
	for i, f := range fails {
		if i == 20 {
			t.Errorf("... and %d more", len(fails)-20)
			break
		}
		t.Error(f)
	}
	// Valid calls, rendered as the format writes them, come back whole.
	t.Logf("valid calls:\n%s", valid)
	for _, format := range Formats() {
		floor := 0.95
		if format == Auto {
			// Auto reads some valid calls as prose (a call it does not
			// tell from a quote): refused, not wrong.
			floor = 0.9
		}
		if got := valid.Rate(format.String()); got < floor {
			t.Errorf("%s: %.3f of valid calls read right, below its floor %.2f", format, got, floor)
		}
	}
	for kind, floor := range oracleStreamFloors {
		if got := byKind.Rate(kind); got < floor {
			t.Errorf("%s: repair rate %.3f through the formats below its floor %.2f", kind, got, floor)
		}
	}
}
