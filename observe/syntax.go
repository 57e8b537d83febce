package observe

import (
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/syntax"
)

// syntaxLanguages are the lang label's values: every language registered.
func syntaxLanguages() []string {
	var out []string
	for _, l := range syntax.Languages() {
		out = append(out, l.Name)
	}
	return out
}

func syntaxOutcomeValues() []string {
	var out []string
	for _, o := range guard.SyntaxOutcomes {
		out = append(out, string(o))
	}
	return out
}
