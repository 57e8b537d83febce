package stream

import "fmt"

// Budget is a pool of bytes parsers draw on as their open calls grow and
// give back when the calls close; parsers in several goroutines may share one.
type Budget interface {
	// Grow draws n more bytes, or draws nothing and reports false.
	Grow(n int) bool
	// Release gives n bytes back.
	Release(n int)
}

// budgetEvent reports a call the shared budget could not grant, which it
// may grant later.
func budgetEvent(index int) Event {
	return Event{Kind: EventError, Index: index, Code: CodeCallTooLarge,
		Text: fmt.Sprintf("call %d was dropped: the memory kept for the open calls of every stream is in use; send it again later", index)}
}

func (p *structuredParser) hold(c *deltaCall) bool {
	if p.opts.Budget == nil || c.size() <= c.held {
		return true
	}
	if !p.opts.Budget.Grow(c.size() - c.held) {
		return false
	}
	c.held = c.size()
	return true
}

func (p *structuredParser) unhold(c *deltaCall) {
	if c.held > 0 {
		p.opts.Budget.Release(c.held)
		c.held = 0
	}
}

// overBudget draws the open call's growth to n bytes, or drops the call.
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

func (p *textParser) unhold() {
	if p.held > 0 {
		p.opts.Budget.Release(p.held)
		p.held = 0
	}
}
