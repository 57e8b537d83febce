package guard

import (
	lru "container/list"
	"context"
	"crypto/sha256"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/toolguard/toolguard/syntax"
)

// A file's content after one change is its content before the next, and a
// retried edit, or the gate's check of a guess followed by the check of the
// change it made, parses the same texts again. The guard keeps the results
// of its recent checks, keyed by language and the content's SHA-256, so
// that no text is parsed twice while it is remembered: a small LRU, bound
// in entries and in the bytes of the errors it keeps (the contents are not
// kept). Only checked results are kept: "not checked" for time may not
// hold on the next try.

// Bounds of the syntax cache, per Guard (one per process).
const (
	syntaxCacheEntries = 512
	syntaxCacheBytes   = 1 << 20
)

type syntaxKey struct {
	lang string
	sum  [sha256.Size]byte
}

type syntaxEntry struct {
	key  syntaxKey
	r    syntax.Result
	size int
}

// syntaxCache is safe for concurrent use; its zero value is not usable,
// a nil one keeps nothing.
type syntaxCache struct {
	mu                   sync.Mutex
	maxEntries, maxBytes int
	bytes                int
	parses               atomic.Int64 // checks run, for tests
	order                *lru.List    // of *syntaxEntry, the most recent first
	byKey                map[syntaxKey]*lru.Element
}

func newSyntaxCache(entries, bytes int) *syntaxCache {
	return &syntaxCache{maxEntries: entries, maxBytes: bytes, order: lru.New(), byKey: map[syntaxKey]*lru.Element{}}
}

func (c *syntaxCache) get(k syntaxKey) (syntax.Result, bool) {
	if c == nil {
		return syntax.Result{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[k]
	if !ok {
		return syntax.Result{}, false
	}
	c.order.MoveToFront(el)
	r := el.Value.(*syntaxEntry).r
	r.Errors = slices.Clone(r.Errors) // the caller's to keep
	return r, true
}

func (c *syntaxCache) put(k syntaxKey, r syntax.Result) {
	if c == nil {
		return
	}
	size := 64 + len(k.lang) + len(r.Lang)
	for _, e := range r.Errors {
		size += 32 + len(e.Message)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[k]; ok || size > c.maxBytes {
		return
	}
	c.byKey[k] = c.order.PushFront(&syntaxEntry{key: k, r: r, size: size})
	c.bytes += size
	for c.order.Len() > c.maxEntries || c.bytes > c.maxBytes {
		old := c.order.Back().Value.(*syntaxEntry)
		c.order.Remove(c.order.Back())
		delete(c.byKey, old.key)
		c.bytes -= old.size
	}
}

// size is the number of results kept.
func (c *syntaxCache) size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// syntaxKeyOf is src's key in the cache; false when src is not checked at
// all (no language, or over the size bound), which is known at once.
func (g *Guard) syntaxKeyOf(path string, src []byte) (syntaxKey, bool) {
	lang, ok := syntax.Detect(path, src)
	if !ok || (g.syntaxLimits.MaxBytes > 0 && len(src) > g.syntaxLimits.MaxBytes) {
		return syntaxKey{}, false
	}
	return syntaxKey{lang: lang, sum: sha256.Sum256(src)}, true
}

// syntaxSide is one side of a change, as the cache knows it: its key, and
// its result when the cache has it.
type syntaxSide struct {
	src    []byte
	key    syntaxKey
	keyed  bool // parsed at all: a known language, within the size bound
	cached bool
	r      syntax.Result
}

func (g *Guard) syntaxSideOf(path string, src []byte) syntaxSide {
	s := syntaxSide{src: src}
	if s.key, s.keyed = g.syntaxKeyOf(path, src); s.keyed {
		s.r, s.cached = g.syntaxCache.get(s.key)
	}
	return s
}

// cost is the memory parsing s holds: nothing when the cache answers or
// nothing is parsed.
func (s syntaxSide) cost() int64 {
	if !s.keyed || s.cached {
		return 0
	}
	return syntax.Cost(s.key.lang, len(s.src))
}

// checkSide is s's result: the cache's, else a parse with ctx, which
// carries the memory held for it.
func (g *Guard) checkSide(ctx context.Context, path string, s syntaxSide) syntax.Result {
	switch {
	case s.cached:
		return s.r
	case !s.keyed:
		return g.syntaxParse(ctx, path, s.src, g.syntaxLimits) // not checked, at once
	}
	if g.syntaxCache != nil {
		g.syntaxCache.parses.Add(1)
	}
	r := g.syntaxParse(ctx, path, s.src, g.syntaxLimits)
	if r.Checked {
		g.syntaxCache.put(s.key, r)
	}
	return r
}

// compareCached compares a change through the cache. The memory of the
// parses the cache cannot spare is reserved first, both sides at once
// (syntax.Budget): past the budget, the change is not checked, and the
// reason says so. When the side before is not cached, it is parsed
// alongside the side after, each on its own core: the check then takes
// one parse's time, not two.
func (g *Guard) compareCached(path string, before, after []byte) ([]syntax.Error, syntax.Comparison) {
	a := g.syntaxSideOf(path, after)
	var b syntaxSide
	if before != nil && a.keyed { // else after is not checked, and before is not needed
		b = g.syntaxSideOf(path, before)
	}
	hold, why := g.syntaxBudget.Reserve(a.cost() + b.cost())
	if why != "" {
		return nil, syntax.Comparison{After: syntax.Result{Lang: a.key.lang, Reason: why}}
	}
	ctx := syntax.WithHold(context.Background(), hold)
	var early chan syntax.Result
	if b.keyed {
		early = make(chan syntax.Result, 1)
		if b.cached {
			early <- b.r
		} else {
			go func() { early <- g.checkSide(ctx, path, b) }()
		}
	}
	sides := 0
	defer func() {
		if early != nil && sides < 2 {
			<-early // not needed after all (or the side after panicked), but no parse outlives its call
		}
		hold.Release()
	}()
	c := syntax.CompareWith(before, after, func(src []byte) syntax.Result {
		if sides++; sides == 1 { // CompareWith checks after, then before
			return g.checkSide(ctx, path, a)
		}
		if early != nil {
			return <-early
		}
		return g.checkSide(ctx, path, syntaxSide{src: src})
	})
	return c.Added, c
}
