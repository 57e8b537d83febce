package guard

import (
	"fmt"

	"github.com/toolguard/toolguard/repair"
)

// An answer that executes nothing (a validation, a streamed call's verdict,
// a read call's) echoes the call within a bound, whatever the call's size,
// with elide.go's markers. Its normalised arguments are what the caller
// executes, so they come whole while they fit, and once:
//
//  1. Parameters the check found unexpected are left out: each is an
//     UNEXPECTED_PARAM violation, listed (the first 50) or counted.
//  2. arguments_json carries the arguments whole while the answer fits the
//     budget; past it, its largest parameters, then the arguments as a
//     whole, become markers (elide.go's rule 3), in both forms.
//  3. The Struct carries strings of at most LargeValueBytes; a longer one is
//     a marker there, its value being in arguments_json. Past what
//     arguments_json leaves of the budget, the Struct's largest parameters,
//     then the whole Struct (field ""), become markers too.
//
// Every marker is listed in Verdict.Elided.

// MaxVerdictBytes bounds an answer that executes nothing: the estimate is
// an upper bound, so no answer passes it.
const MaxVerdictBytes = 512 << 10

const (
	// verdictReserve covers what the estimate leaves out (ids, framing...).
	verdictReserve = 16 << 10
	// structReserve is what arguments_json leaves the Struct at least: its
	// small values and markers.
	structReserve = 4 << 10
)

// verdictBudget is the size an answer that executes nothing may take; 0:
// no bound, the arguments come back as checked.
func (g *Guard) verdictBudget() int {
	b := g.answerBudget()
	if g.maxVerdict > 0 {
		v := g.maxVerdict - min(verdictReserve, g.maxVerdict/2)
		if b <= 0 || v < b {
			b = v
		}
	}
	return b
}

// fit bounds an answer that executes nothing (rules above).
func (g *Guard) fit(v *Verdict) error {
	budget := g.verdictBudget()
	if budget <= 0 || v.Args == nil {
		return nil
	}
	args, argsJSON := v.echo, v.ArgumentsJSON
	if args == nil {
		args = v.EchoArgs()
	}
	if v.echo == nil && len(args) != len(v.Args) {
		var err error
		if argsJSON, err = repair.EncodeArgs(args); err != nil {
			return fmt.Errorf("encode the echoed arguments: %w", err)
		}
	}
	fixed := fixedSize(v.Result, v.Feedback, &Execution{})
	// A cheap bound first: most answers are far under the budget, and no
	// string of theirs can be large. Arguments without their encoding are
	// past the budget (echoJSON).
	if argsJSON != nil && len(argsJSON) <= LargeValueBytes && fixed+(structPerJSONByte+1)*len(argsJSON)+64 <= budget {
		v.Args, v.ArgumentsJSON = args, argsJSON
		return nil
	}
	j, err := answer{args: args, argsJSON: argsJSON, fixed: fixed + structReserve, echo: true, count: countJSON}.shape(budget, true)
	if err != nil {
		return err
	}
	used := fixed + len(j.argsJSON) + 8
	for _, el := range j.elided {
		used += elisionSize(el)
	}
	st, err := answer{args: j.args, argsJSON: j.argsJSON, fixed: used, count: countStruct}.shape(budget, true)
	if err != nil {
		return err
	}
	v.Args, v.ArgumentsJSON = st.args, j.argsJSON
	v.Elided = append(j.elided, st.elided...)
	return nil
}
