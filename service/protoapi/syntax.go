package protoapi

import (
	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
)

var syntaxOutcomes = map[guard.SyntaxOutcome]toolguardv1.SyntaxOutcome{
	guard.SyntaxClean:       toolguardv1.SyntaxOutcome_SYNTAX_OUTCOME_CLEAN,
	guard.SyntaxAdded:       toolguardv1.SyntaxOutcome_SYNTAX_OUTCOME_ADDED,
	guard.SyntaxStillBroken: toolguardv1.SyntaxOutcome_SYNTAX_OUTCOME_STILL_BROKEN,
	guard.SyntaxNowParses:   toolguardv1.SyntaxOutcome_SYNTAX_OUTCOME_NOW_PARSES,
	guard.SyntaxNotChecked:  toolguardv1.SyntaxOutcome_SYNTAX_OUTCOME_NOT_CHECKED,
}

// syntaxChecksToProto converts an execution's syntax checks.
func syntaxChecksToProto(checks []guard.SyntaxCheck) []*toolguardv1.SyntaxCheck {
	var out []*toolguardv1.SyntaxCheck
	for _, c := range checks {
		out = append(out, &toolguardv1.SyntaxCheck{Path: c.Path, Language: c.Lang, Outcome: syntaxOutcomes[c.Outcome],
			Reason: c.Reason, Errors: syntaxFindingsToProto(c.Errors), Added: uint32(max(c.Added, 0))})
	}
	return out
}

func syntaxFindingsToProto(fs []guard.SyntaxFinding) []*toolguardv1.SyntaxFinding {
	var out []*toolguardv1.SyntaxFinding
	for _, f := range fs {
		out = append(out, &toolguardv1.SyntaxFinding{Path: f.Path, Line: uint32(max(f.Line, 0)), Column: uint32(max(f.Column, 0)),
			Message: f.Message, Lines: f.Lines})
	}
	return out
}
