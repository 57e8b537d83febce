package repair

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/oracle"
)

// The corruption oracle (internal/oracle) on Validate: every case, through
// every call form that can carry it, comes back exactly the original call
// or refused. Run with -v for the repair rate per corruption kind:
//
//	go test ./repair/ -run TestOracle -v

// oracleRegistry is a registry without built-in tools, and each agent's
// tools, declared with a call as a proxy's request declares them.
func oracleRegistry(t testing.TB) (*Registry, map[string]Options) {
	reg, err := NewRegistryWithoutTools()
	if err != nil {
		t.Fatal(err)
	}
	opts := map[string]Options{}
	for _, ot := range oracle.Tools() {
		tool, err := reg.Compile(ToolDef{Name: ot.Name, Parameters: ot.Schema})
		if err != nil {
			t.Fatalf("%s: %v", ot.Name, err)
		}
		o := opts[ot.Agent]
		o.Tools = append(o.Tools, tool)
		opts[ot.Agent] = o
	}
	return reg, opts
}

// oracleForms are the call forms a case can take: the arguments text, the
// object a stream parser parsed (strict JSON only), the parameters split
// out of XML and the whole XML block, whole or with a stream corruption.
func oracleForms(c oracle.Case, rng *rand.Rand) map[string]Call {
	name := c.Want.Tool.Name
	forms := map[string]Call{"text": {Name: name, Form: FormText, Text: c.Text}}
	if parsed, ok := oracle.Strict(c.Text); ok {
		forms["parsed"] = Call{Name: name, Form: FormText, Text: c.Text, Parsed: parsed}
	}
	if params, ok := oracle.Params(c); ok {
		forms["params"] = Call{Name: name, Form: FormParams, Params: params}
	}
	if r, ok := oracle.Render("xml_tags", c, rng); ok {
		forms["xml"] = Call{Form: FormXML, Text: r.Text()}
		k := oracle.StreamKinds[rng.IntN(len(oracle.StreamKinds))]
		if bad, ok := oracle.CorruptResponse(r, k, rng); ok {
			forms["xml+"+string(k)] = Call{Form: FormXML, Text: bad.Text()}
		}
	}
	return forms
}

// oracleKnown are the classes of silent-wrong results the oracle has
// found and the engine does not fix yet, each with its reason. They are
// counted in the table's WRONG column and logged; every other silent-wrong
// result fails the test.
var oracleKnown = map[string]string{}

// oracleKnownClass returns the known class a case on a form falls in.
func oracleKnownClass(form string, c oracle.Case) (string, bool) {
	for _, class := range []string{form, c.Name()} {
		if _, ok := oracleKnown[class]; ok {
			return class, true
		}
	}
	for _, k := range c.Kinds {
		if _, ok := oracleKnown[string(k)]; ok {
			return string(k), true
		}
	}
	return "", false
}

// oracleCase runs one case through every form into the table; it returns
// the failures not of a known class, and counts the known ones.
func oracleCase(reg *Registry, opts map[string]Options, c oracle.Case, rng *rand.Rand, table oracle.Table, known map[string]int) []string {
	var fails []string
	for form, call := range oracleForms(c, rng) {
		res := reg.Validate(call, opts[c.Want.Tool.Agent])
		out := oracle.Judge(c, res.OK(), res.ToolName, res.Args)
		kind := c.Name()
		switch {
		case strings.HasPrefix(form, "xml+"):
			kind = form
		case form != "text":
			kind = form + ":" + kind
		}
		table.Add(kind, out)
		if out != oracle.Wrong {
			continue
		}
		if class, ok := oracleKnownClass(form, c); ok {
			known[class]++
			continue
		}
		fails = append(fails, oracle.Describe("repair/"+form, c, res.ToolName, res.Args, "repairs: "+repairCodes(res.Repairs)))
	}
	return fails
}

func repairCodes(rs []Repair) string {
	s := ""
	for _, r := range rs {
		s += r.Code + " "
	}
	return s
}

// oracleFloors are the repair rates (made right, of all cases) the engine
// keeps per kind through the arguments text: refusing everything cannot
// pass. Cuts and the kinds that leave two readings are expected refused.
var oracleFloors = map[string]float64{
	"none":            0.97,
	"python_literals": 0.9,
	"single_quotes":   0.9,
	"double_encoded":  0.95,
	"raw_arguments":   0.95,
	"wrapped":         0.95,
	"code_fence":      0.95,
	"raw_newlines":    0.8,
	"extra_close":     0.5,
	"renamed_param":   0.5,
}

func TestOracle(t *testing.T) {
	reg, opts := oracleRegistry(t)
	n := 600 // cases of each kind alone
	if testing.Short() || oracle.Race {
		n = 150
	}
	table, known := oracle.Table{}, map[string]int{}
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
			fails = append(fails, oracleCase(reg, opts, c, g.Rand(), table, known)...)
		}
	}
	t.Logf("corruption oracle, repair.Validate:\n%s", table)
	cases, wrong := table.Total()
	t.Logf("%d cases, %d silent-wrong, of known classes: %v", cases, wrong, known)
	if len(fails) > 0 {
		for i, f := range fails {
			if i == 20 {
				t.Errorf("... and %d more", len(fails)-20)
				break
			}
			t.Error(f)
		}
		t.Errorf("%d of %d cases usable and wrong outside the known classes", len(fails), cases)
	}
	for kind, floor := range oracleFloors {
		if got := table.Rate(kind); got < floor {
			t.Errorf("%s: repair rate %.3f below its floor %.2f", kind, got, floor)
		}
	}
}

// FuzzOracle runs the oracle on cases the fuzzer picks: a seed and up to
// two kinds (by index into oracle.Kinds; 255 is none). A silent-wrong
// result outside the known classes fails with its seed and kind.
func FuzzOracle(f *testing.F) {
	f.Add(uint64(1), uint8(0), uint8(255))
	f.Add(uint64(7), uint8(5), uint8(17))
	f.Add(uint64(42), uint8(13), uint8(255))
	reg, opts := oracleRegistry(f)
	f.Fuzz(func(t *testing.T, seed uint64, a, b uint8) {
		kinds := []oracle.Kind{oracle.Kinds[int(a)%len(oracle.Kinds)]}
		if b != 255 {
			if k := oracle.Kinds[int(b)%len(oracle.Kinds)]; k != kinds[0] && (k.Stage() != kinds[0].Stage() || k.Stage() == 4) {
				kinds = append(kinds, k)
			}
		}
		c, g, ok := oracle.Draw(seed, kinds...)
		if !ok {
			return
		}
		for _, fail := range oracleCase(reg, opts, c, g.Rand(), oracle.Table{}, map[string]int{}) {
			t.Error(fail)
		}
	})
}
