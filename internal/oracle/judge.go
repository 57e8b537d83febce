package oracle

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Outcome is what became of a case.
type Outcome int

const (
	// Right: usable, and exactly the original call.
	Right Outcome = iota
	// Refused: not usable (or no call found).
	Refused
	// AsWritten: usable as the model wrote it, where what it wrote is
	// itself a valid call (an entity in edit text, a literal \n in an
	// edit): no evidence tells it from the original, so it is no repair
	// and no error.
	AsWritten
	// Wrong: usable and neither the original nor what was written.
	Wrong
)

func (o Outcome) String() string {
	return [...]string{"right", "refused", "as-written", "WRONG"}[o]
}

// Judge rules on a result: usable or not, the tool it named, its
// arguments.
func Judge(c Case, usable bool, tool string, args map[string]any) Outcome {
	switch {
	case !usable:
		return Refused
	case tool == c.Want.Tool.Name && Equal(args, c.Want.Args):
		return Right
	}
	if tool == c.Want.Tool.Name && len(c.Arrived) > 0 && len(args) == len(c.Arrived) && membersOf(args, c.Want.Args, c.Args) {
		// Cut right after a complete top-level member: the members that
		// arrived are a call whose final brace was forgotten, as a
		// missing_close case writes it; the text tells the two apart by
		// nothing, and the engine repairs the forgotten brace.
		return AsWritten
	}
	if tool == c.Want.Tool.Name && !slices.Contains(c.Kinds, Renamed) {
		if Equal(args, c.Args) {
			return AsWritten
		}
		if w, ok := Strict(c.Text); ok && Equal(args, w) {
			return AsWritten
		}
	}
	return Wrong
}

// membersOf reports whether each member of args is one of want's or of
// written's, with its value.
func membersOf(args, want, written map[string]any) bool {
	for k, v := range args {
		w, inWant := want[k]
		x, inWritten := written[k]
		if !(inWant && Equal(v, w) || inWritten && Equal(v, x)) {
			return false
		}
	}
	return true
}

// ArrivedAt is c for a response whose arguments were cut to text (a
// stream cut): where the cut lands right after a complete top-level
// member, Arrived lists the members that came, as Corrupt does for a cut
// of the arguments text.
func ArrivedAt(c Case, text string) Case {
	if m, ok := Strict(text + "}"); ok && len(m) > 0 && len(m) < len(c.Want.Args) {
		c.Arrived = slices.Sorted(maps.Keys(m))
	}
	return c
}

// Describe is a failure as a reproducible message.
func Describe(path string, c Case, tool string, args map[string]any, detail string) string {
	return fmt.Sprintf("%s: seed %d kind %s: usable and wrong\n  tool %s (%s)\n  sent %q\n  want %s %s\n  got  %s %s\n  %s",
		path, c.Seed, c.Name(), c.Want.Tool.Name, c.Want.Tool.Agent, c.Text, c.Want.Tool.Name, JSON(c.Want.Args), tool, JSON(args), detail)
}

// Table counts outcomes by kind.
type Table map[string]*[4]int

// Add counts one outcome.
func (t Table) Add(kind string, o Outcome) {
	if t[kind] == nil {
		t[kind] = new([4]int)
	}
	t[kind][o]++
}

// Total is the number of cases, and of Wrong ones.
func (t Table) Total() (cases, wrong int) {
	for _, n := range t {
		cases += n[0] + n[1] + n[2] + n[3]
		wrong += n[Wrong]
	}
	return cases, wrong
}

// Rate is the fraction of a kind's cases made right.
func (t Table) Rate(kind string) float64 {
	n := t[kind]
	if n == nil {
		return 0
	}
	return float64(n[Right]) / float64(n[0]+n[1]+n[2]+n[3])
}

// String is the table, a line a kind, sorted.
func (t Table) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-34s %7s %7s %7s %7s %6s %7s\n", "kind", "cases", "right", "refused", "as-writ", "WRONG", "repair")
	for _, k := range slices.Sorted(maps.Keys(t)) {
		n := t[k]
		fmt.Fprintf(&b, "%-34s %7d %7d %7d %7d %6d %6.1f%%\n", k, n[0]+n[1]+n[2]+n[3], n[Right], n[Refused], n[AsWritten], n[Wrong], 100*t.Rate(k))
	}
	cases, wrong := t.Total()
	fmt.Fprintf(&b, "total %d cases, %d silent-wrong\n", cases, wrong)
	return b.String()
}
