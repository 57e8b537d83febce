package stream

import "fmt"

// The budget of the bytes parsers hold of their open calls
// (Options.Budget): a call draws on it as its text grows, and gives back
// what it drew when it closes or is dropped.

// Budget is a pool of bytes parsers draw on (Options.Budget). Parsers in
// different goroutines may share one.
type Budget interface {
	// Grow draws n more bytes, or draws nothing and reports false.
	Grow(n int) bool
	// Release gives n bytes back.
	Release(n int)
}

// budgetEvent reports a call dropped because Options.Budget could not
// grant its growth: a limit shared with other parsers, which may allow the
// same call later.
func budgetEvent(index int) Event {
	return Event{Kind: EventError, Index: index, Code: CodeCallTooLarge,
		Text: fmt.Sprintf("call %d was dropped: the memory kept for the open calls of every stream is in use; send it again later", index)}
}

// hold draws the call's growth from the budget, or reports false.
func (p *structuredParser) hold(c *deltaCall) bool {
	if p.opts.Budget == nil || len(c.args) <= c.held {
		return true
	}
	if !p.opts.Budget.Grow(len(c.args) - c.held) {
		return false
	}
	c.held = len(c.args)
	return true
}

// unhold gives back what the call drew from the budget.
func (p *structuredParser) unhold(c *deltaCall) {
	if c.held > 0 {
		p.opts.Budget.Release(c.held)
		c.held = 0
	}
}

// overBudget draws the open call's growth, to n bytes buffered, from the
// budget, or drops the call when the budget cannot grant it.
func (p *textParser) overBudget(n int) bool {
	if p.opts.Budget == nil || n <= p.held {
		return false
	}
	if p.opts.Budget.Grow(n - p.held) {
		p.held = n
		return false
	}
	p.drop(budgetEvent(p.call.index))
	return true
}

// unhold gives back what the open call drew from the budget.
func (p *textParser) unhold() {
	if p.held > 0 {
		p.opts.Budget.Release(p.held)
		p.held = 0
	}
}
