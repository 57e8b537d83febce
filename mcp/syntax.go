package mcp

import "github.com/toolguard/toolguard/guard"

// SyntaxCheck is one changed file's syntax check, as toolguard.v1's.
type SyntaxCheck struct {
	Path     string          `json:"path"`
	Language string          `json:"language"`
	Outcome  string          `json:"outcome"`
	Reason   string          `json:"reason,omitempty"`
	Errors   []SyntaxFinding `json:"errors,omitempty"`
	Added    int             `json:"added,omitempty"`
}

// SyntaxFinding is one syntax error a change added.
type SyntaxFinding struct {
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Column  int    `json:"column,omitempty"`
	Message string `json:"message"`
	Lines   string `json:"lines,omitempty"`
}

// syntaxOutcomes are the outcomes as toolguard.v1 names them.
var syntaxOutcomes = map[guard.SyntaxOutcome]string{
	guard.SyntaxClean: "CLEAN", guard.SyntaxAdded: "ADDED", guard.SyntaxStillBroken: "STILL_BROKEN",
	guard.SyntaxNowParses: "NOW_PARSES", guard.SyntaxNotChecked: "NOT_CHECKED",
}

func syntaxChecks(checks []guard.SyntaxCheck) []SyntaxCheck {
	var out []SyntaxCheck
	for _, c := range checks {
		out = append(out, SyntaxCheck{Path: c.Path, Language: c.Lang, Outcome: syntaxOutcomes[c.Outcome], Reason: c.Reason,
			Errors: syntaxFindings(c.Errors), Added: c.Added})
	}
	return out
}

func syntaxFindings(fs []guard.SyntaxFinding) []SyntaxFinding {
	var out []SyntaxFinding
	for _, f := range fs {
		out = append(out, SyntaxFinding{Path: f.Path, Line: f.Line, Column: f.Column, Message: f.Message, Lines: f.Lines})
	}
	return out
}
