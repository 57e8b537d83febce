package syntax

import "context"

// bounded runs a parser that cannot be interrupted so that the check
// returns when ctx ends: the caller then has "not checked" at once, and the
// parse, whose input is bounded by Limits.MaxBytes, finishes on its own,
// holding the check's memory reservation (ctx's Hold) until it does.
func bounded(ctx context.Context, parse func() ([]Error, error)) ([]Error, error) {
	if ctx.Done() == nil {
		return parse()
	}
	type answer struct {
		errs []Error
		err  error
	}
	done := make(chan answer, 1)
	h := holdOf(ctx)
	h.retain()
	go func() {
		errs, err := parse()
		h.Release() // before the answer: a check that has it holds nothing of the parse's
		done <- answer{errs, err}
	}()
	select {
	case a := <-done:
		return a.errs, a.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
